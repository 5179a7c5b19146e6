"""The bundled game library: one YAML spec per game, with its data files (package data)."""
