"""Sleuth's solver: generic over any compiled game, one sub-package per stage.

    infoset/      information sets: one protocol (protocol.py), enumerated (belief.py)
                  and counted (counted.py) kinds, backends by name (backends.py),
                  observations (observe.py), candidate queries (queries.py)
    strategies/   each strategy one class with declared options; the registry
    evaluation/   exact evaluation, one game's transcript, design analysis and its
                  report, tournaments (bench)
    interfaces/   the command line (cli.py, commands/), the Python API (api.py),
                  play sessions, summaries

It imports only the compiler's public API (sleuth.compiler.api).
"""
