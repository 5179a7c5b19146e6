"""The Python API: the operations of the command line as functions (design §6).

    import sleuth
    game = sleuth.load(NAME)                              # a bundled spec, or a path
    belief = sleuth.belief(game)                          # the prior information set
    belief = sleuth.observe(belief, QUERY, ARGS, OUTCOME) # values as the spec writes them
    query = sleuth.suggest(belief, strategy="entropy")    # the next query: action + args
    result = sleuth.evaluate(game, strategy="minimax")    # every secret: total, worst, ...
    report = sleuth.analyse(game)                         # first moves, entropy per round
    marks = sleuth.feedback(game, SECRET, QUERY, ARGS)    # what a secret answers
    game1 = sleuth.simulate(game, "entropy", seed=1)      # one game: `sleuth solve --json`

Every error a user can cause is a `sleuth.SleuthError` with a message, a
location where there is one, and a hint.

The functions' examples (numpydoc, run as doctests by tests/test_api_doctests.py) play a
small code-breaking game: `SPEC` names a spec whose secret is a sequence `code` of
`pegs` colours out of `colours`, asked by `guess` with `g` and answered with `black` and
`white`, and `game` is that spec loaded with three pegs and three colours, as `load`'s
example loads it. docs/api.md walks through the same calls on a bundled game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sleuth.compiler.api import Budget, Game, load_game, show_value
from sleuth.solver.evaluation.analysis import Analysis
from sleuth.solver.evaluation.analysis import analyse as run_analysis
from sleuth.solver.evaluation.evaluate import Evaluation, evaluate_strategy
from sleuth.solver.evaluation.transcript import (
    SECRET_STREAM,
    locate_secret,
    outcome,
    play_secret,
    secret_values,
)
from sleuth.solver.infoset.backends import choose_backend, lists_hypotheses, prior_belief
from sleuth.solver.infoset.observe import checked_args, make_event
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates, Query
from sleuth.solver.strategies import DEFAULT_STRATEGY, Strategy, make_strategy


def load(spec: str | Path, *, max_hypotheses: int | None = None, memory_mb: int | None = None,
         data_anywhere: bool = False, **params: Any) -> Game:
    """A spec loaded, checked and compiled.

    Parameters
    ----------
    spec : str or Path
        The path of a spec file, or the name of a bundled spec (`sleuth.bundled_specs()`).
    max_hypotheses, memory_mb : int, optional
        The budgets (`--max-hypotheses`, `--memory-mb`); the defaults when not given.
    data_anywhere : bool
        Let the spec read data files outside its folder (for a spec one trusts).
    **params
        Overrides of the spec's params, checked as `--set` is.

    Returns
    -------
    Game
        The compiled game. A bad spec raises `sleuth.SpecError`, located.

    Examples
    --------
    >>> game = sleuth.load(SPEC, pegs=3, colours=3)
    >>> game.hypotheses.size
    27
    """
    defaults = Budget()
    budget = Budget(max_hypotheses=max_hypotheses or defaults.max_hypotheses,
                    memory_mb=memory_mb or defaults.memory_mb)
    return load_game(spec, params or None, budget, data_anywhere)


def belief(game: Game, backend: str | None = None) -> InformationSet:
    """The information set before any observation.

    Parameters
    ----------
    game : Game
    backend : str, optional
        One of `sleuth.BACKENDS`; by default `enum` (listed) when the secret's
        assignments fit the enumeration budget, else the first counter that suits it.

    Returns
    -------
    InformationSet

    Examples
    --------
    >>> prior = sleuth.belief(game)
    >>> prior.size, round(prior.entropy_bits(), 4)
    (27, 4.7549)
    """
    return prior_belief(game, backend)


def observe(current: InformationSet, query: str, args: dict[str, Any],
            outcome: Any) -> InformationSet:
    """The information set after `query(args)` gave `outcome`.

    Parameters
    ----------
    current : InformationSet
    query : str
        The action's name.
    args : dict
        Its arguments by name, values as the spec writes them.
    outcome
        The feedback, as a mapping of its components, or a random answer.

    Returns
    -------
    InformationSet
        A new set; `current` is left as it was. An outcome no hypothesis explains raises
        `sleuth.InconsistentObservations`.

    Examples
    --------
    >>> prior = sleuth.belief(game)
    >>> after = sleuth.observe(prior, "guess", {"g": [1, 1, 2]}, {"black": 1, "white": 0})
    >>> after.size
    6
    >>> sleuth.observe(after, "guess", {"g": [1, 1, 2]}, {"black": 3, "white": 0})
    Traceback (most recent call last):
    ...
    sleuth.solver.infoset.belief.InconsistentObservations: inconsistent observations: ...
    """
    return current.observe(make_event(current.game, query, dict(args), outcome,
                                      turn=len(current.history) + 1))


@dataclass(frozen=True)
class Suggestion:
    """A query to ask next, as `suggest` returns it: `query`, the action's name, and
    `args`, its arguments by name, with values as the spec writes them and as JSON
    takes them (sets as sorted lists, sequences as lists). `str()` gives the text `play`
    shows (`guess g=[1, 1, 2, 2]`); `feedback(game, secret, s.query, s.args)` answers
    it.

    Examples
    --------
    >>> s = sleuth.Suggestion("guess", {"g": [1, 1, 2, 2]})
    >>> str(s)
    'guess g=[1, 1, 2, 2]'
    """

    query: str
    args: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.query} " + " ".join(f"{k}={v}" for k, v in self.args.items())


def strategy(game: Game, name: str = DEFAULT_STRATEGY, guesses: str = "any", seed: int = 0,
             **options: Any) -> Strategy:
    """A strategy by name, with the options it declares (checked).

    Parameters
    ----------
    game : Game
    name : str
        One of `sleuth.STRATEGIES`.
    guesses : {"any", "consistent"}
        Whether a query may be any legal one, or only one that can still be the secret.
    seed : int
        For the strategies that draw.
    **options
        The strategy's own options (an option it does not declare is an error).

    Returns
    -------
    Strategy

    Examples
    --------
    >>> sleuth.strategy(game, "minimax").name
    'minimax'
    """
    return make_strategy(name, Candidates(game, guesses), seed, **options)


def suggest(current: InformationSet, strategy: str = DEFAULT_STRATEGY, guesses: str = "any",
            seed: int = 0, **options: Any) -> Suggestion:
    """The query the strategy chooses for this information set.

    Parameters
    ----------
    current : InformationSet
    strategy, guesses, seed, **options
        As for `sleuth.strategy`.

    Returns
    -------
    Suggestion

    Examples
    --------
    >>> s = sleuth.suggest(sleuth.belief(game), strategy="minimax")
    >>> s
    Suggestion(query='guess', args={'g': [1, 1, 2]})
    >>> str(s)
    'guess g=[1, 1, 2]'
    """
    chooser = make_strategy(strategy, Candidates(current.game, guesses), seed, **options)
    q = chooser.choose(current)
    args = chooser.candidates.args(q)
    return Suggestion(q.action, {k: show_value(v) for k, v in args.items()})


def feedback(game: Game, secret: Any, query: str, args: dict[str, Any],
             seed: int = 0, turn: int = 1) -> Any:
    """What `secret` answers to `query(args)`.

    Parameters
    ----------
    game : Game
    secret
        A mapping of the secret's variables to their values, or the value itself when
        the secret has one variable; values as the spec writes them.
    query : str
    args : dict
    seed : int
        For an action answered by a random response: one answer is drawn, seeded.
    turn : int
        The query's place in the game, for an action that reads it.

    Returns
    -------
    dict or value
        The feedback as a mapping of its components (or the answer), as JSON takes it.

    Examples
    --------
    >>> sleuth.feedback(game, [1, 2, 3], "guess", {"g": [1, 1, 2]})
    {'black': 1, 'white': 1}
    """
    action = game.model.action(query)
    args = checked_args(game, action, dict(args), turn=turn)
    secret_game, index = locate_secret(game, secret_values(game, secret),
                                       lists_hypotheses(choose_backend(game, None)))
    asked = Query(action.name, int(game.space(action.name).rank(args)))
    event = outcome(secret_game, asked, args, index, np.random.default_rng(seed))
    return show_value(event.feedback if event.feedback is not None else event.answer)


def simulate(game: Game, strategy: str = DEFAULT_STRATEGY, *, secret: Any = None,
             seed: int = 0, guesses: str = "any", backend: str | None = None,
             max_steps: int = 100, **options: Any) -> dict[str, Any]:
    """One game: the strategy asks and the secret answers.

    Parameters
    ----------
    game : Game
    strategy : str
    secret : optional
        As in `feedback`; without it, one drawn by the prior from `seed` (the one `sleuth
        solve --random-secret --seed` draws).
    seed, guesses, backend, max_steps, **options
        As for `sleuth.strategy` and `sleuth.belief`; `max_steps` bounds the game.

    Returns
    -------
    dict
        The transcript `sleuth solve --json` prints: `secret`, `hypotheses`,
        `entropy_bits`, `queries`, `solved` and `steps` (each {query, args, feedback |
        answer, remaining, entropy_bits, information_bits}), with `strategy`, `backend`
        and `guesses`.

    Examples
    --------
    >>> played = sleuth.simulate(game, "entropy", secret=[1, 2, 3])
    >>> played["queries"], played["solved"], [step["args"] for step in played["steps"]]
    (2, True, [{'g': [1, 1, 2]}, {'g': [1, 2, 3]}])
    """
    chooser = make_strategy(strategy, Candidates(game, guesses), seed, **options)
    chosen = choose_backend(game, backend)
    root = prior_belief(game, chosen)
    if secret is None:
        drawn = root.draw(1, np.random.default_rng([seed, SECRET_STREAM]))
        secret_game, index = drawn.game, int(drawn.index[0])
    else:
        secret_game, index = locate_secret(game, secret_values(game, secret),
                                           lists_hypotheses(chosen))
    played = play_secret(game, chooser, index, seed, max_steps, root=root,
                         secret_game=secret_game)
    return {"strategy": chooser.name, "backend": chosen, "guesses": guesses,
            **played.to_json()}


def evaluate(game: Game, strategy: str = DEFAULT_STRATEGY, guesses: str = "any",
             secrets: int | None = None, seed: int = 0, backend: str | None = None,
             **options: Any) -> Evaluation:
    """Every secret played against the strategy, as one tree over feedback partitions.

    Parameters
    ----------
    game : Game
    strategy, guesses, seed, backend, **options
        As for `sleuth.strategy` and `sleuth.belief`.
    secrets : int, optional
        A seeded sample of this many secrets instead of all of them.

    Returns
    -------
    Evaluation
        `.total`, `.average`, `.worst`, `.histogram` and `.to_json()`.

    Examples
    --------
    >>> result = sleuth.evaluate(game, "minimax")
    >>> result.total, result.worst, result.histogram
    (74, 4, {1: 1, 2: 7, 3: 17, 4: 2})
    """
    chooser = make_strategy(strategy, Candidates(game, guesses), seed, **options)
    root = prior_belief(game, choose_backend(game, backend))
    return evaluate_strategy(game, chooser, game.name, secrets, seed, root=root)


def analyse(game: Game, strategy: str = DEFAULT_STRATEGY, guesses: str = "any",
            secrets: int | None = None, seed: int = 0, **options: Any) -> Analysis:
    """The design analysis: first-move profile, entropy per round, spatial and temporal
    interest.

    Parameters
    ----------
    game : Game
    strategy, guesses, secrets, seed, **options
        As for `sleuth.evaluate`.

    Returns
    -------
    Analysis
        `.spatial`, `.temporal` (bits) and `.to_json()`.

    Examples
    --------
    >>> report = sleuth.analyse(game)
    >>> round(report.spatial, 4), round(report.temporal, 4)
    (0.3287, 0.4712)
    """
    chooser = make_strategy(strategy, Candidates(game, guesses), seed, **options)
    return run_analysis(game, chooser, game.name, secrets=secrets, seed=seed)


__all__ = ["Suggestion", "analyse", "belief", "evaluate", "feedback", "load", "observe",
           "simulate", "strategy", "suggest"]
