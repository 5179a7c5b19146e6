"""Tournaments: strategies against seeded secrets of several games (`sleuth bench`).

The experiment of Meng & Lucas (2024): a random agent, SO-ISMCTS, exhaustive
ISES and sampled ISES with a per-decision time limit, each playing N trials
of every game, compared by the average number of queries. A run is split
into independent tasks, one per (game, strategy, trial); trial t of a game
plays the same secret for every strategy (drawn from a seed made of the run's
seed and t), so strategies are compared on paired secrets. Tasks run in this
process, in local worker processes (`workers`), or on a Dask distributed
cluster (`scheduler`, the optional `cluster` extra); results do not depend on
where a task ran, only on its seed (and, for time-limited strategies, on
the clock).
"""

from __future__ import annotations

import csv
import json
import math
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from sleuth.compiler.api import (
    Budget,
    Game,
    SleuthError,
    load_game,
    option,
    parallel,
    show_value,
)
from sleuth.solver.evaluation.cluster import connect
from sleuth.solver.evaluation.transcript import play_secret
from sleuth.solver.infoset.backends import choose_backend, lists_hypotheses, prior_belief
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates
from sleuth.solver.strategies import applicable, make_strategy

MAX_STEPS = 100  # a game not finished by then counts as unsolved, with these steps


DEFAULT_BUDGET = Budget()  # the command line's defaults


@dataclass(frozen=True)
class Task:
    """One game of one strategy against one seeded secret."""

    spec: str  # path of the spec file
    params: tuple[tuple[str, Any], ...]  # --set overrides
    strategy: str
    trial: int
    seed: int
    time_limit: float  # seconds per decision (ises-sampled, ismcts): --budget
    backend: str | None = None  # the information set's backend (None: chosen by size)
    budget: Budget = DEFAULT_BUDGET  # --max-hypotheses and --memory-mb
    iterations: int | None = None  # fixed work per decision instead of the clock
    schedule: str | None = None  # fixed work decision by decision ("N1,N2,...")


def make_tasks(specs: Iterable[tuple[str, dict[str, Any]]], strategies: Iterable[str],
               trials: int, seed: int, time_limit: float,
               backend: str | None = None, budget: Budget = DEFAULT_BUDGET,
               iterations: int | None = None, schedule: str | None = None) -> list[Task]:
    """Tasks for (spec path, params) pairs, strategy by strategy, trial by trial. Each
    strategy is made once for each game first: one that cannot play a game is an error
    before any work."""
    specs, strategies = list(specs), list(strategies)
    for spec, params in specs:
        _, candidates = _setup(str(spec), tuple(sorted(params.items())), budget)
        for name in strategies:
            make_strategy(name, candidates, **applicable(name, {
                "budget": time_limit, "iterations": iterations, "schedule": schedule}))
    return [Task(str(spec), tuple(sorted(params.items())), s, t, seed, time_limit, backend,
                 budget, iterations, schedule)
            for spec, params in specs for s in strategies for t in range(trials)]


def parse_spec_sizes(args: Iterable[str], common: dict[str, Any],
                     budget: Budget = DEFAULT_BUDGET) -> list[tuple[str, dict]]:
    """`SPEC` or `SPEC@name=value,name=value` (a size of that game); `common` params go to
    every spec that declares them, and each must be declared by one at least."""
    from sleuth.compiler.api import parse_overrides

    out, used = [], set()
    for arg in args:
        path, _, sizes = arg.partition("@")
        own = parse_overrides([x for x in sizes.split(",") if x]) if sizes else {}
        declared = load_game(path, own, budget).model.params  # checks it and its own sizes
        shared = {k: v for k, v in common.items() if k in declared and k not in own}
        used |= set(shared)
        out.append((path, {**shared, **own}))
    unused = sorted(set(common) - used)
    if unused:
        raise SleuthError(f"no spec declares the param '{unused[0]}' given with {option('set')}",
                          hint="give a size to one spec as SPEC@name=value")
    return out


@lru_cache(maxsize=16)
def _setup(spec: str, params: tuple[tuple[str, Any], ...],
           budget: Budget = DEFAULT_BUDGET) -> tuple[Game, Candidates]:
    """A game and its queries, once per process; the feedback matrices that fit are built
    here, before any trial is timed, so no strategy's first decision pays for them."""
    game = load_game(spec, dict(params) or None, budget)
    candidates = Candidates(game)
    candidates.keep_matrices()
    return game, candidates


def seeds(task: Task) -> tuple[np.random.SeedSequence, int, int]:
    """Independent streams of one trial: its secret, the strategy's seed and the seed of
    random answers (distinct spawn keys: one seed reused for two purposes correlates them,
    and a random agent then guesses the secret)."""
    secret, strategy, answers = np.random.SeedSequence([task.seed, task.trial]).spawn(3)
    return secret, int(strategy.generate_state(1)[0]), int(answers.generate_state(1)[0])


def secret_of(game: Game, task: Task,
              root: InformationSet | None = None) -> tuple[Game, int]:
    """The hypothesis trial `task.trial` plays: the same for every strategy. From the
    hypothesis table; from `root`, by its own sampler, when that lists none."""
    rng = np.random.default_rng(seeds(task)[0])
    if root is not None and task.backend and not lists_hypotheses(task.backend):
        drawn = root.draw(1, rng)
        return drawn.game, int(drawn.index[0])
    if game.model.prior is None:
        return game, int(rng.integers(game.hypotheses.size))
    return game, int(rng.choice(game.hypotheses.size, p=game.prior))


def run_task(task: Task) -> dict[str, Any]:
    """Play one trial; a plain dict, so it travels between processes and machines."""
    game, candidates = _setup(task.spec, task.params, task.budget)
    _, strategy_seed, answer_seed = seeds(task)
    strategy = make_strategy(task.strategy, candidates, seed=strategy_seed,
                             **applicable(task.strategy, {"budget": task.time_limit,
                                                          "iterations": task.iterations,
                                                          "schedule": task.schedule}))
    root = prior_belief(game, choose_backend(game, task.backend)) if task.backend else None
    secret_game, secret = secret_of(game, task, root)
    start = time.perf_counter()
    t = play_secret(game, strategy, secret, answer_seed, MAX_STEPS, root=root,
                    secret_game=secret_game)
    out = {"game": game.name, "spec": task.spec, "params": dict(task.params),
           "strategy": task.strategy, "trial": task.trial,
           "secret": {k: show_value(v) for k, v in
                      secret_game.hypotheses.value(secret).items()},
           "steps": len(t.steps), "solved": t.solved,
           "seconds": round(time.perf_counter() - start, 4)}
    if t.guess is not None:  # goal: {confidence}: was the confident guess right?
        out.update(correct=t.correct, posterior=t.posterior)
    if any(step.work for step in t.steps):  # a time-limited strategy: how much it searched
        out["work"] = [step.work or {} for step in t.steps]
    return out


def run(tasks: list[Task], workers: int = 1, scheduler: str | None = None,
        progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Every task's result, in task order."""
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    if scheduler:
        for i, r in _on_dask(tasks, scheduler):
            results[i] = r
            if progress:
                progress(1)
    elif workers > 1:
        # Workers ignore Ctrl-C; the parent hears it, and leaving the block terminates
        # them at once (an executor would first finish every queued task).
        with get_context("fork").Pool(workers, initializer=start_worker) as pool:
            for i, r in pool.imap_unordered(_run_indexed, enumerate(tasks)):
                results[i] = r
                if progress:
                    progress(1)
    else:
        for i, t in enumerate(tasks):
            results[i] = run_task(t)
            if progress:
                progress(1)
    return [r for r in results if r is not None]


def start_worker() -> None:
    """A worker process's initializer: Ctrl-C is the parent's to handle, and its compiled
    passes keep to one thread (the workers between them already fill the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parallel.alone()


def _run_indexed(item: tuple[int, Task]) -> tuple[int, dict[str, Any]]:
    return item[0], run_task(item[1])


def _on_dask(tasks: list[Task], scheduler: str):
    from dask.distributed import as_completed as dask_completed

    with connect(scheduler) as client:
        futures = client.map(run_task, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for f in dask_completed(futures):
            yield index[f.key], f.result()


def summarise(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (game file, params, strategy): trials, solved, average steps and its 95 %
    confidence half-width (normal approximation), worst."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in results:
        key = (r["spec"], json.dumps(r["params"], sort_keys=True), r["strategy"])
        groups.setdefault(key, []).append(r)
    rows = []
    for (spec, params, strategy), rs in groups.items():
        steps = np.array([r["steps"] for r in rs], dtype=float)
        sd = float(steps.std(ddof=1)) if len(steps) > 1 else 0.0
        rows.append({"game": rs[0]["game"], "spec": spec, "params": json.loads(params),
                     "strategy": strategy, "trials": len(rs),
                     "solved": sum(r["solved"] for r in rs),
                     "average": float(steps.mean()),
                     "ci95": 1.96 * sd / math.sqrt(len(steps)) if len(steps) > 1 else 0.0,
                     "worst": int(steps.max()),
                     "seconds": round(sum(r["seconds"] for r in rs), 3)})
        if all("correct" in r for r in rs):  # a confidence goal: how often it was right
            rows[-1].update(correct=sum(r["correct"] for r in rs),
                            mean_posterior=float(np.mean([r["posterior"] for r in rs])))
    return rows


def size_label(row: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v}" for k, v in row["params"].items())
    return f"{row['game']} ({params})" if params else row["game"]


def write_outputs(rows: list[dict[str, Any]], results: list[dict[str, Any]],
                  out: Path) -> list[Path]:
    """results.csv (the summary), results.json (summary and every trial), plot PNG/SVG."""
    out.mkdir(parents=True, exist_ok=True)
    table = out / "results.csv"
    with table.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "params", "strategy", "trials", "solved", "average", "ci95",
                    "worst", "seconds"])
        for r in rows:
            w.writerow([r["game"], json.dumps(r["params"], sort_keys=True), r["strategy"],
                        r["trials"], r["solved"], f"{r['average']:.4f}", f"{r['ci95']:.4f}",
                        r["worst"], r["seconds"]])
    data = out / "results.json"
    data.write_text(json.dumps({"summary": rows, "trials": results}, indent=2) + "\n")
    return [table, data, *plot(rows, out)]


def plot(rows: list[dict[str, Any]], out: Path) -> list[Path]:
    """Average steps per game and size, one bar per strategy, with 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(size_label(r) for r in rows))
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    width = 0.8 / max(1, len(strategies))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.4 * len(games) + 2), 4))
    for k, s in enumerate(strategies):
        mine = {size_label(r): r for r in rows if r["strategy"] == s}
        xs = [i + (k - (len(strategies) - 1) / 2) * width for i in range(len(games))]
        ax.bar(xs, [mine[g]["average"] if g in mine else 0 for g in games], width,
               yerr=[mine[g]["ci95"] if g in mine else 0 for g in games], capsize=2,
               label=s)
    ax.set_xticks(range(len(games)), games, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("average queries to finish")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title("strategies by game (95 % intervals)")
    paths = []
    for ext in ("png", "svg"):
        path = out / f"results.{ext}"
        fig.savefig(path, dpi=120, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


__all__ = ["Task", "make_tasks", "parse_spec_sizes", "run", "run_task", "summarise",
           "write_outputs"]
