"""The commands of `sleuth`, one module per group, imported when run."""
