"""Sleuth: deduction games as specs, compiled and solved."""
