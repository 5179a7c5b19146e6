"""`sleuth atlas`: every game's design side by side, computed from the specs.

Per spec (default: every bundled spec at its default params) one entry of plain
data: the sizes of its hypothesis and query spaces, its entropy, the design
analysis of `sleuth analyse` under `entropy` (first-move profile, entropy per
round, game lengths, spatial and temporal interest), and the totals of `entropy`,
`minimax` and the proven `optimal` over the same secrets, each with the command
that reproduces it. Each step runs in a child process under what is left of the
game's time budget: a step cut by it is reported as cut, never guessed at.
Games are spread over worker processes (`workers`), one game per worker at a time.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from sleuth.compiler.api import SleuthError, in_child, load_game, spec_path

COMPARED = ("minimax", "optimal")  # evaluated beside the analysis's entropy
SIMULATED_GAMES = 200  # seeded games of entropy where answers are random
EVERY_SECRET_UP_TO = 20_000  # games played against every secret; larger ones are sampled


KINDS = {  # a game's kind -> what the atlas computes for it
    "observations only": ("summary",),
    "answers may lie": ("summary", "optimal-worst"),
    "random answers": ("summary", "simulated"),
    "deterministic answers": ("summary", "analysis", "minimax", "optimal"),
}


def kind_of(game: Any) -> str:
    """Which steps a game allows: with no queries there is nothing to choose (the game is
    its observations); exact evaluation needs truthful, deterministic answers; against
    lies the worst case is proven; random answers are simulated."""
    from sleuth.solver.infoset.queries import Candidates

    if not game.model.queries:
        return "observations only"
    if game.model.lies is not None:
        return "answers may lie"
    if any(not b.deterministic for b in Candidates(game, "any").blocks):
        return "random answers"
    return "deterministic answers"


def atlas_entries(specs: list[str], budget: float, workers: int = 1,
                  heard: Callable[[int, int, dict[str, Any]], None] | None = None,
                  every_up_to: int = EVERY_SECRET_UP_TO) -> list[dict[str, Any]]:
    """One entry per spec, in the order given; `heard(done, total, entry)` hears each as
    it finishes. Games of at most `every_up_to` secrets are played against all of them,
    larger ones on the analysis's seeded sample."""
    entries: dict[int, dict[str, Any]] = {}
    for i, entry in _run(specs, budget, workers, every_up_to):
        entries[i] = entry
        if heard:
            heard(len(entries), len(specs), entry)
    return [entries[i] for i in range(len(specs))]


def _run(specs: list[str], budget: float, workers: int, every_up_to: int
         ) -> Iterator[tuple[int, dict[str, Any]]]:
    if workers <= 1:
        for i, spec in enumerate(specs):
            yield i, game_entry(spec, budget, every_up_to)
        return
    with worker_pool(workers) as pool:
        futures = {pool.submit(game_entry, spec, budget, every_up_to): i
                   for i, spec in enumerate(specs)}
        for done in as_completed(futures):
            yield futures[done], done.result()


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """`workers` spawned processes (not forked from a parent that may hold threads); each
    forks one child per step, as in a single process, and keeps its compiled passes to
    one thread, since the workers between them fill the cores."""
    from sleuth.compiler.api import parallel

    spawn = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=spawn, initializer=parallel.alone)


def game_entry(spec: str, budget: float, every_up_to: int = EVERY_SECRET_UP_TO
               ) -> dict[str, Any]:
    """One game's entry, its steps run in children within `budget` seconds in all."""
    start = time.monotonic()
    entry: dict[str, Any] = {"spec": spec, "budget_seconds": budget, "cut": [], "errors": {}}
    try:
        game = load_game(spec_path(spec))
    except SleuthError as err:
        entry["errors"]["load"] = str(err)  # with its file:line:col and hint
        entry["seconds"] = round(time.monotonic() - start, 2)
        return entry
    entry["game"], entry["params"] = game.model.game, dict(game.model.params)
    sample: dict[str, Any] = {}
    try:
        entry["kind"] = kind_of(game)
    except SleuthError as err:
        entry["errors"]["load"] = err.message
    steps = KINDS.get(entry.get("kind", ""), ())
    entry["steps"] = list(steps)
    for step in steps:
        left = budget - (time.monotonic() - start)
        if left <= 0:
            entry["cut"].append(step)
            continue
        if step in COMPARED and "analysis" not in entry:  # nothing to stand beside
            if "analysis" in entry["cut"]:
                entry["cut"].append(step)
            else:
                entry["errors"][step] = "not played: the analysis did not run"
            continue
        end = in_child(lambda step=step, sample=sample: _step(step, game, spec, sample,
                                                              every_up_to),
                       timeout=left,
                       quiet_stdout=True, what=f"{spec}: {step}")
        if end.kind == "ok":
            entry[step] = end.value
            if step == "analysis":
                sample = {"secrets": end.value["sampled"], "seed": 0}
        elif end.kind == "timeout":
            entry["cut"].append(step)
        elif end.kind == "error":
            entry["errors"][step] = getattr(end.value, "message", str(end.value))
        else:
            entry["errors"][step] = f"the step died ({end.status}) {end.last_words[-200:]}"
    entry["seconds"] = round(time.monotonic() - start, 2)
    return entry


def _step(step: str, game: Any, spec: str, sample: dict[str, Any],
          every_up_to: int) -> dict[str, Any]:
    if step == "summary":
        return _summary(game, spec)
    if step == "analysis":
        return _analysis(game, spec, every_up_to)
    if step == "simulated":
        return _simulated(game, spec)
    return _evaluated(step, game, spec, sample)


def _summary(game: Any, spec: str) -> dict[str, Any]:
    from sleuth.solver.infoset.backends import choose_backend
    from sleuth.solver.interfaces.summary import summarise

    backend = choose_backend(game, None)
    s = summarise(game, spec, backend)
    legal = [q["legal"] for q in s["queries"]]
    return {"backend": backend, "hypotheses": s["hypotheses"],
            "entropy_bits": s["entropy_bits"], "actions": len(legal),
            "queries": None if None in legal else sum(legal),
            "feedbacks": [q.get("feedback_values") for q in s["queries"]]}


def _analysis(game: Any, spec: str, every_up_to: int) -> dict[str, Any]:
    from sleuth.solver.evaluation.analysis import analyse
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.strategies import make_strategy

    # every secret where that is cheap (the totals are then evaluate's own, comparable with
    # published ones); the analysis's seeded sample above
    n = game.hypotheses.size
    result = analyse(game, make_strategy("entropy", Candidates(game, "any")), spec,
                     secrets=n if n <= every_up_to else None)
    data = result.to_json()
    ev = result.evaluation
    sampled = None if ev.secrets == result.hypotheses else ev.secrets
    moves = data["first_moves"]
    moves["class_count"] = len(moves["classes"])
    moves["classes"] = moves["classes"][:5]  # the best five
    data["sampled"] = sampled
    data["entropy"] = _lengths(ev, _command(spec, "entropy", sampled))
    return data


def _evaluated(name: str, game: Any, spec: str, sample: dict[str, Any]) -> dict[str, Any]:
    from sleuth.solver.evaluation.evaluate import evaluate_strategy
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.strategies import make_strategy

    secrets = sample.get("secrets")
    if name == "optimal" and secrets is not None:
        raise SleuthError("the optimum is over every secret; the analysis sampled them")
    ev = evaluate_strategy(game, make_strategy(name, Candidates(game, "any")), spec,
                           secrets, sample.get("seed", 0))
    return _lengths(ev, _command(spec, name, secrets))


def _simulated(game: Any, spec: str) -> dict[str, Any]:
    from sleuth.solver.evaluation.bench import make_tasks, run_task, summarise

    tasks = make_tasks([(spec, {})], ["entropy"], SIMULATED_GAMES, 0, 0.1)
    results = [run_task(t) for t in tasks]
    row = summarise(results)[0]
    steps = [r["steps"] for r in results]
    histogram = {str(k): steps.count(k) for k in sorted(set(steps))}
    return {**{k: row[k] for k in ("trials", "solved", "average", "ci95", "worst")},
            "histogram": histogram,
            "command": f"sleuth bench {spec} --strategies entropy --trials "
                       f"{SIMULATED_GAMES} --seed 0"}


def _lengths(ev: Any, command: str) -> dict[str, Any]:
    out = {"secrets": ev.secrets, "total": ev.total, "average": float(ev.average),
           "worst": ev.worst, "histogram": {str(k): v for k, v in ev.histogram.items()},
           "command": command}
    if ev.rounds:  # a game in rounds, scored by rounds first (optimal minimises those)
        out["rounds"] = sum(ev.rounds.values())
    return out


def _command(spec: str, strategy: str, secrets: int | None) -> str:
    sample = "" if secrets is None else f" --secrets {secrets} --seed 0"
    return f"sleuth evaluate {spec} --strategy {strategy}{sample}"


__all__ = ["KINDS", "atlas_entries", "game_entry", "kind_of"]
