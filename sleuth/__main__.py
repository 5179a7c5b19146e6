"""`python -m sleuth`: the command line."""

from sleuth.solver.interfaces.cli import run

run()
