"""Sleuth's solver: generic over any compiled game (information sets, strategies, CLI).

    summary.py   what `sleuth check` / `sleuth info` report about a game
    cli.py       the `sleuth` command line
"""
