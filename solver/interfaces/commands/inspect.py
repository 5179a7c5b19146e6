"""`sleuth check`, `sleuth info` and `sleuth compile`: what a spec is, and its boolean form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sleuth.compiler.api import SleuthError, show_value
from sleuth.solver.infoset.backends import BACKENDS, choose_backend, prior_belief
from sleuth.solver.infoset.observe import apply_event
from sleuth.solver.infoset.reachable import describe_values
from sleuth.solver.interfaces.options import (
    backend_option,
    game_options,
    load,
    load_options,
    make_console,
    split,
)
from sleuth.solver.interfaces.reading import read_observations
from sleuth.solver.interfaces.session import write_atomically
from sleuth.solver.interfaces.summary import summarise
from sleuth.solver.wording import counted


@click.command()
@click.argument("specs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@load_options
@backend_option
@click.option("--json", "as_json", is_flag=True,
              help="A JSON list on stdout: one object per spec, with its summary or error.")
def check(specs: tuple[str, ...], overrides: tuple[str, ...], max_hypotheses: int,
          memory_mb: int, data_anywhere: bool, backend: str | None, as_json: bool) -> None:
    """Validate each SPEC and print its summary. Exit status 1 if any is invalid."""
    results: list[dict[str, Any]] = []
    for spec in specs:
        try:
            game = load(spec, overrides, max_hypotheses, memory_mb, data_anywhere)
            summary = summarise(game, spec, choose_backend(game, backend))
        except SleuthError as err:
            loc = err.loc
            results.append({"spec": spec, "ok": False, "error": {
                "message": err.message, "hint": err.hint,
                "location": None if loc is None else
                {"file": loc.file, "line": loc.line, "column": loc.col}}})
            if not as_json:
                click.echo(f"error: {err}", err=True)
            continue
        results.append({"ok": True, **summary})
        if not as_json:
            print_summary(summary)
    if as_json:
        click.echo(json.dumps(results, indent=2, default=str))
    if not all(r["ok"] for r in results):
        raise SystemExit(1)


@click.command()
@game_options
@backend_option
@click.option("--observations", type=click.Path(dir_okay=False), default=None,
              help="Report the hypotheses left after these observations.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@click.option("--symmetry", is_flag=True,
              help="Also find the game's symmetries and count the query orbits at the root "
                   "and one query down (what the optimal search scores).")
def info(spec: str, overrides: tuple[str, ...], max_hypotheses: int, memory_mb: int,
         data_anywhere: bool, backend: str | None, observations: str | None,
         as_json: bool, symmetry: bool) -> None:
    """Hypotheses, entropy, queries and backend of SPEC (after OBSERVATIONS, if given)."""
    game = load(spec, overrides, max_hypotheses, memory_mb, data_anywhere)
    backend = choose_backend(game, backend)
    summary = summarise(game, spec, backend, count=not observations)
    if symmetry:
        summary["symmetry"] = symmetry_summary(game, backend)
    if observations:
        current = prior_belief(game, backend)
        events = read_observations(game, observations)
        for event in events:
            current = apply_event(current, event)
        summary.update(observed=len(events), hypotheses=current.size,  # "observations":
                       entropy_bits=current.entropy_bits())  # the spec's observation kinds
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        print_summary(summary)


def symmetry_summary(game: Any, backend: str) -> dict[str, Any] | None:
    """The symmetry group found (solver/infoset/symmetry.py) and the orbit counts."""
    from sleuth.solver.infoset.orbits import generated_levels
    from sleuth.solver.infoset.symmetry import of_game, orbit_levels

    if backend != "enum":
        raise SleuthError("--symmetry looks at the listed hypotheses", hint="--backend enum")
    found = of_game(game)
    if found is None:
        return generated_levels(game)
    sym, row, queries = found
    return {"group": sym.size, "generators": sym.generators,
            "levels": orbit_levels(sym, row, queries)}


def print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    console = make_console()
    console.print(Text.assemble((s["game"], "bold"), f" ({s['spec']}): OK"))
    secret = ", ".join(f"{k}: {v}" for k, v in s["secret"].items())
    console.print(f"secret       {secret}")
    console.print(f"hypotheses   {s['hypotheses']:,}   entropy {s['entropy_bits']:.4f} bits"
                  f"   prior {s['prior']}   backend {s['backend']}"
                  + (f"   (after {counted(s['observed'], 'observation')})"
                     if "observed" in s else ""))
    if s.get("lies"):
        lies = s["lies"]
        console.print(f"lies         at most {counted(lies['budget'], 'false answer')} in a "
                      "game, placed by an adversary"
                      + (" (a rule says which)" if lies["rule"] else ""))
    size = ", ".join(f"{k.replace('_', ' ')} {v:,}" if isinstance(v, int) else f"{k} {v}"
                     for k, v in s["backend_size"].items())
    console.print(f"backend size {size}")
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for col in ("action", "arguments", "legal", "feedback"):
        table.add_column(col)
    for kind in ("queries", "observations"):
        for a in s[kind]:
            args = ", ".join(f"{k}: {v}" for k, v in a["args"].items()) or "-"
            legal = (f"{a['legal']:,} of {a['arg_tuples']:,}" if a["legal"] is not None
                     else f"too many to enumerate ({a['arg_tuples']:,} argument tuples)")
            if "feedback" in a:
                values = (counted(a["feedback_values"], "value") if a["feedback_values"] is not None
                          else f"at most {a['feedback_bound']:,} values")
                fb = f"{', '.join(a['feedback'])}: {values}"
                if a.get("feedback_domain"):
                    fb += " (" + "; ".join(f"{k} {describe_values(v)}" for k, v in
                                           a["feedback_domain"].items()) + ")"
            else:
                r = a["response"]
                fb = f"response {r['answer']} ({r['likelihood']})"
            name = a["name"] if kind == "queries" else f"{a['name']} (observation)"
            table.add_row(name, args, legal, fb)
    console.print(table)
    if "symmetry" in s:
        sym = s["symmetry"]
        if sym is None:
            console.print("symmetry     none found")
        else:
            console.print(f"symmetry     a group of {sym['group']:,} "
                          f"({', '.join(sym['generators'])})")
            for depth, level in enumerate(sym["levels"], 1):
                console.print(f"  level {depth}: {level['nodes']:,} information sets, "
                              f"{level['orbits']:,} query orbits to score of "
                              f"{counted(level['queries'], 'query')}")


@click.command(name="compile")
@game_options
@click.option("--to", "target", type=click.Choice(["dimacs", "json"]), required=True,
              help="dimacs: the CNF with a 'c p show' projection line; json: the one-hot "
                   "variables and the sizes of both targets.")
@click.option("--observations", type=click.Path(dir_okay=False), default=None,
              help="Condition on these observations (deterministic feedback only).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write here instead of stdout (atomically).")
@click.option("--backend", type=click.Choice(BACKENDS), default="sdd", show_default=True,
              help="With --to json: the backend that counts the hypotheses.")
@click.option("--json", "as_json", is_flag=True,
              help="With -o: what was written, as one JSON object on stdout.")
def compile_spec(spec: str, target: str, observations: str | None, output: str | None,
                 backend: str, as_json: bool, **kwargs: Any) -> None:
    """Compile SPEC (and observations) to boolean form for external tools."""
    if as_json and not output:
        raise SleuthError("--json reports what -o wrote; without -o the compiled form itself "
                          "goes to stdout", hint="add -o FILE (--to json is JSON already)")
    game, _ = split({"spec_path": spec, **kwargs})
    space = game.symbolic
    events = read_observations(game, observations) if observations else []
    facts = [space.fact(e.action, e.args, e.feedback) for e in events if _deterministic(e)]
    cnf = space.clauses(*facts)
    if target == "dimacs":
        text = cnf.dimacs([f"{game.name} ({spec}), params {json.dumps(game.model.params)}",
                           f"models projected onto variables 1..{cnf.secret_vars} "
                           "(the secret's one-hot groups) are its hypotheses"])
    else:
        diagram = space.condition(space.base, *facts)
        counted = prior_belief(game, backend)
        for event in events:
            counted = apply_event(counted, event)
        text = json.dumps({"game": game.name, "spec": spec, "backend": backend,
                           "hypotheses": counted.size,
                           "secret_variables": cnf.secret_vars, "variables": cnf.top,
                           "clauses": len(cnf.clauses), "diagram_nodes": diagram.size(),
                           "groups": [{**g, "values": [show_value(v) for v in g["values"]]}
                                      for g in space.describe()]}, indent=2) + "\n"
    if not output:
        click.echo(text, nl=False)
        return
    write_atomically(Path(output), text)
    wrote = {"output": output, "to": target, "bytes": len(text.encode()),
             "variables": cnf.top, "secret_variables": cnf.secret_vars,
             "clauses": len(cnf.clauses)}
    click.echo(json.dumps(wrote) if as_json else
               f"wrote {output}: {target}, {cnf.top:,} variables ({cnf.secret_vars:,} of the "
               f"secret), {len(cnf.clauses):,} clauses")


def _deterministic(event) -> bool:
    if event.feedback is None:
        raise SleuthError(f"{event.describe()}: a random answer cannot be compiled to boolean "
                          "form", event.loc, hint="the symbolic backend conditions on "
                                                  "deterministic feedback")
    return True


