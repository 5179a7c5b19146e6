"""Sleuth's solver: generic over any compiled game.

    belief.py       the information set: hypotheses left, log weights, marginals, entropy
    counted.py      the information set as counted facts (the symbolic backend)
    likelihood.py   P(answer | hypothesis) for `response` queries
    observe.py      observation events: checked against the spec, applied to beliefs
    queries.py      candidate queries in canonical order and their outcome partitions
    strategies.py   entropy (ISES), ises-sampled, minimax, expected-size, most-parts, random
    evaluate.py     exact evaluation of a strategy by recursion over partitions
    analysis.py     design analysis: first moves, entropy per round, interest metrics
    report.py       the analysis as a report with plots
    bench.py        tournaments of strategies, locally or on a Dask cluster
    transcript.py   one game against a known secret
    session.py      play sessions on disk, saved atomically
    play.py         interactive decision support
    summary.py      what `sleuth check` / `sleuth info` report about a game
    cli.py          the `sleuth` command line
"""
