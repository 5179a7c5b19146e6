"""The bundled game library: one YAML spec per game, with its data files (package data).

LANDING names the spec a newcomer meets first (the worksheet's landing page): the
classic of the library, chosen here with the games, not in the engine."""

LANDING = "mastermind"
