"""`sleuth evaluate`: every secret (or a seeded sample) against a strategy, as one tree."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from sleuth.compiler.api import SleuthError, coerce, option, resident_cap, spec_path
from sleuth.solver.evaluation.cluster import Recipe, Workers
from sleuth.solver.evaluation.evaluate import evaluate_strategy
from sleuth.solver.infoset.backends import choose_backend, prior_belief
from sleuth.solver.infoset.observe import query_text
from sleuth.solver.infoset.queries import Query
from sleuth.solver.interfaces.options import (
    backend_option,
    game_options,
    make_console,
    make_from_options,
    progress_bar,
    split,
    strategy_options,
)
from sleuth.solver.interfaces.reading import parse_query_text
from sleuth.solver.strategies.trees import verify_tree, write_tree
from sleuth.solver.wording import counted, plural


@click.command()
@game_options
@backend_option
@strategy_options
@click.option("--secrets", type=click.IntRange(1), default=None,
              help="Evaluate a seeded sample of this many secrets instead of all.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@click.option("--tree", "tree_file", type=click.Path(dir_okay=False), default=None,
              help="Write the decision tree to this JSON file, and as text next to it "
                   "(.txt); check it with `sleuth verify-tree`.")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Split the work over this many local Dask worker processes (the "
                   "optimal search's first level, else the subtrees one query down); "
                   "the result is the serial one. Needs the `cluster` extra.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Split the work over the workers of the Dask scheduler at ADDR.")
@click.option("--first", "first_text", default=None, metavar="QUERY",
              help="Force the first query (e.g. 'guess 1122', or just its arguments when "
                   "the spec has one kind of query: --first 1122); the strategy chooses "
                   "every later one (optimal, optimal-worst: proven best after it).")
def evaluate(spec: str, secrets: int | None, as_json: bool, tree_file: str | None,
             workers: int | None, scheduler: str | None, first_text: str | None,
             **kwargs: Any) -> None:
    """Play every secret of SPEC against a strategy (one tree over feedback partitions)."""
    recipe = recipe_of(spec, kwargs)
    cap = given_memory(kwargs)
    game, opts = split({"spec_path": spec, **kwargs})
    backend = choose_backend(game, opts["backend"])
    if tree_file is not None and secrets is not None:
        raise SleuthError("--tree writes the whole tree: it cannot be combined with --secrets")
    if workers is not None and scheduler is not None:
        raise SleuthError("--workers starts local workers; --scheduler uses a cluster's: "
                          "give one of them")
    # the workers build the strategy while this process does
    pool = Workers(workers, scheduler) if workers or scheduler else None
    try:
        if pool is not None:  # (from the prior: its opening, unless told a first query)
            pool.prepare(recipe, opening=first_text is None and secrets is None)
        strategy = make_from_options(game, opts)
        root = prior_belief(game, backend)
        first = None if first_text is None else opening(game, first_text)
        total = min(secrets or root.size, root.size)
        with progress_bar(total, f"evaluating {strategy.name}") as advance, (
                nullcontext() if cap is None else resident_cap(
                    cap, f"evaluating {strategy.name}", hint=f"raise {option('memory_mb')} if "
                    "the machine has it, or try a heuristic strategy (or --top K)")):
            result = evaluate_strategy(game, strategy, spec, secrets, opts["seed"], advance,
                                       root, tree=tree_file is not None, workers=pool,
                                       recipe=recipe, first=first)
            proof = None
            if secrets is None:  # a claim about every secret
                proof = strategy.proven(root) if first is None else \
                    strategy.proven_after(root, first)
    finally:
        if pool is not None:
            pool.close()
    data = {**result.to_json(), "backend": backend}
    if proof is not None:
        claims = [(k, proof[k]) for k in ("total", "worst") if proof[k] is not None]
        if any(data[k] != v for k, v in claims):
            raise SleuthError(f"{strategy.name}: the search proved total {proof['total']} "
                              f"and worst {proof['worst']}, but its tree gives "
                              f"{data['total']} and {data['worst']}",
                              hint="this is a bug in Sleuth; please report it")
        made = data.get("rounds", {})
        if "rounds" in proof and (proof["rounds"], proof["worst_game"]) != (
                made.get("total"), made.get("worst_game")):
            raise SleuthError(f"{strategy.name}: the search proved {proof['rounds']} rounds "
                              f"(worst game {proof['worst_game']}), but its tree gives "
                              f"{made.get('total')} ({made.get('worst_game')})",
                              hint="this is a bug in Sleuth; please report it")
        # `--top K` is exact only over the queries it tried: an upper bound on the
        # optimum, so the JSON names it so and has no "proven" key then
        data["upper_bound" if proof["top"] else "proven"] = proof
    if tree_file is not None:
        meta = {"spec": spec, "params": {k: v for k, v in game.model.params.items()},
                "strategy": strategy.name, "guesses": opts["guesses"],
                "total": data["total"], "worst": data["worst"]}
        text = write_tree(result.tree or {}, Path(tree_file), json.loads(json.dumps(
            meta, default=str)), game)
        data["tree"] = {"json": tree_file, "text": str(text)}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    from rich.text import Text

    console = make_console()
    first = data["first_query"]
    first_text = query_text(first["query"], _typed(game, first)) if first else "-"
    console.print(Text.assemble((game.name, "bold"),
                                f": {strategy.name} (guesses {opts['guesses']}) "
                                f"over {counted(data['secrets'], 'secret')} in "
                                f"{data['seconds']:.2f} s"))
    fraction = data["average_fraction"]  # shown when the average is not a whole number
    console.print(f"total {data['total']:,}   average {data['average']:.4f}"
                  f"{'' if '/' not in fraction else f' ({fraction})'}   worst {data['worst']}   "
                  f"first query {first_text}")
    if "rounds" in data:
        made = data["rounds"]
        fraction = made["average_fraction"]
        console.print(f"rounds {made['total']:,}   average {made['average']:.4f}"
                      f"{'' if '/' not in fraction else f' ({fraction})'}   worst game "
                      f"{made['worst_game']['rounds']} rounds, "
                      f"{made['worst_game']['queries']} queries   (scored by rounds, then "
                      "queries)")
    if "expected" in data:  # a weighted prior: the average a game has, not per hypothesis
        console.print(f"expected {data['expected']:.4f} queries a game (hypotheses weighted "
                      "by the prior)")
    if proof is not None and "statement" in proof:
        console.print(proof["statement"])
    elif proof is not None and proof["top"]:
        opener = "" if "first" not in proof else f"open with {first_text} and then "
        console.print(f"optimal ({proof['order']}) among strategies that {opener}ask only "
                      f"the first {proof['top']} queries of each set: an upper bound on the "
                      f"optimum (search: {proof['nodes']:,} information sets)")
    elif proof is not None:
        opener = "" if "first" not in proof else f" after the first query {first_text}"
        rivals = "strategy" if "first" not in proof else "strategy that opens with it"
        console.print(f"proven optimal ({proof['order']}){opener}: no {rivals} does better "
                      f"(search: {proof['nodes']:,} information sets)")
    if tree_file is not None:
        console.print(f"tree written to {tree_file} and {data['tree']['text']}")
    peak = max(data["histogram"].values())
    for length, count in data["histogram"].items():
        bar = "#" * max(1, round(40 * count / peak))
        console.print(f"  {length:>3} {plural(int(length), 'query'):<7} {count:>8,}  {bar}")


def given_memory(kwargs: dict[str, Any]) -> int | None:
    """--memory-mb when the user gave it: the evaluation's whole process is then kept
    under it (plus the interpreter's share, compiler/guard.py resident_cap); by default
    it bounds the feedback blocks and the diagram library only, so a search that needs
    gigabytes runs as it did."""
    source = click.get_current_context().get_parameter_source("memory_mb")
    return kwargs["memory_mb"] if source is ParameterSource.COMMANDLINE else None


def recipe_of(spec: str, kwargs: dict[str, Any]) -> Recipe:
    """How a worker builds this command's game and strategy again."""
    options = tuple(sorted((k.removeprefix("strategy_"), v) for k, v in kwargs.items()
                           if k.startswith("strategy_") and v is not None))
    return Recipe(str(Path(spec_path(spec)).resolve()), tuple(kwargs["overrides"]),
                  kwargs["max_hypotheses"], kwargs["memory_mb"], kwargs["data_anywhere"],
                  kwargs["strategy"], options, kwargs["guesses"], kwargs["seed"])


@click.command("verify-tree")
@click.argument("tree_file", type=click.Path(dir_okay=False))
@game_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
def verify_tree_command(tree_file: str, spec: str, as_json: bool, **kwargs: Any) -> None:
    """Check a decision tree (from `evaluate --tree`) against SPEC: every secret reaches an
    end, and the total and worst case are recomputed."""
    game, _ = split({"spec_path": spec, **kwargs})
    try:
        document = json.loads(Path(tree_file).read_text())
    except OSError as err:
        raise SleuthError(f"cannot read {tree_file}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise SleuthError(f"{tree_file}:{err.lineno}:{err.colno}: not JSON ({err.msg})") \
            from None
    except RecursionError:
        raise SleuthError(f"{tree_file}: JSON nested too deeply to read") from None
    # a tree may be checked against another game than its own (does the free game's
    # tree keep a rule?), so other params are no error; a failure names them
    other = _written_for(game, document)
    try:
        got = verify_tree(game, document)
    except SleuthError as err:
        if other:
            err.hint = "; ".join(filter(None, (err.hint, other)))
        raise
    claimed = {k: document[k] for k in ("total", "worst") if k in document}
    line = (f"{tree_file}: every one of {counted(got['secrets'], 'secret')} is reached; total "
            f"{got['total']:,}, average {got['total'] / got['secrets']:.4f}, worst "
            f"{got['worst']}")
    if claimed and claimed != {k: got[k] for k in claimed}:
        raise SleuthError(line + f"; the file claims {claimed}", hint=other)
    if claimed:
        line += " (as the file claims)"
    if "queries_before_known" in got:
        k = got["queries_before_known"]
        line += (f"; while a secret is unknown it asks {k:,} distinct {plural(k, 'query')}, "
                 "which asked all at once tell every secret apart (a static plan)")
    if as_json:
        click.echo(json.dumps({"tree": tree_file, "spec": spec, **got,
                               "average": got["total"] / got["secrets"], "claimed": claimed}))
    else:
        click.echo(line)


def _written_for(game: Any, document: dict) -> str | None:
    """Where the tree file's params (written by `evaluate --tree`) differ from the game's
    here: the `--set` options that give its own game, as a hint; else None."""
    wanted = document.get("params")
    if not isinstance(wanted, dict):
        return None
    have = json.loads(json.dumps(dict(game.model.params), default=str))
    differ = {k: v for k, v in wanted.items() if have.get(k) != v}
    if not differ:
        return None
    sets = " ".join(f"--set {k}={v if isinstance(v, str) else json.dumps(v)}"
                    for k, v in differ.items())
    return f"the tree was written for another game: {sets}"


def _typed(game: Any, query: dict) -> dict:
    """A query's arguments from JSON back to plain values of their domains (a sequence is
    a tuple again, so it prints as typed: a word, not a list of letters)."""
    domains = {a.name: a.domain for a in game.model.action(query["query"]).args}
    return {k: coerce(domains[k], v) for k, v in query["args"].items()}


def opening(game: Any, text: str) -> Query:
    """The query `--first` names: `action args`, or only the arguments when the spec has
    one kind of query."""
    actions = [a.name for a in game.model.queries]
    words = text.split()
    if len(actions) == 1 and (not words or words[0] not in actions):
        text = f"{actions[0]} {text}"
    action, args = parse_query_text(game, text, turn=1)
    return Query(action, int(game.space(action).rank(args)))
