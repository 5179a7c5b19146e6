"""Every bundled spec x every strategy, through the `sleuth` command's own entry point.

Each spec is run at small params by `check`, `info` and `evaluate --strategy S` for
every registered strategy, as text and as `--json`. A command may succeed (exit 0) or
refuse with a clear error (exit 1); it never ends in a traceback or another status, and
every `--json` output parses as one JSON object (a list for `check`). The strategies'
options are read from their declarations: a sampled strategy is given fixed work, `tree`
a tree written by `evaluate --tree` first.

Two runners, three tiers. The forked runner runs `--json` commands (the machine-read
output, where a missing key raises) in children forked from one Python process that
imported the script's entry point (`cli.run`) once: each child has its own stdin, stdout
and stderr, and an uncaught exception is printed and ends it as the script's would, so
the code path is the script's without the interpreter's start and imports paid a
thousand times. The default tier runs it on KINDS, a spec of each kind a strategy
treats apart (plain, a static plan's, lies, a cover goal, random answers) with every
strategy; the end-to-end tier on every spec. The slow tier runs the matrix's text
commands through the installed `sleuth` script, once per command, as a user does.

MINUTES names the pairs that take minutes at the smallest size their spec has (the exact
searches over Wordle's word lists, Clue's exhaustive scoring of 324 suggestions by model
counts): the matrix leaves them out, in both tiers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sleuth.solver.strategies import STRATEGIES
from tests.conftest import ROOT

# small params per bundled spec (every spec in specs/ must be named: a new one is
# added here, at a size whose every command takes seconds)
SMALL: dict[str, dict[str, object]] = {
    "battleship": {"n": 3, "carrier": 0, "battleship": 0, "submarine": 0, "cruiser": 2},
    "black-box": {"n": 4, "k": 2},
    "black-peg-mastermind": {"pegs": 3, "colours": 3},
    "bulls-and-cows": {"digits": 2},
    "clue": {},
    "counterfeit-coin": {"coins": 4},
    "decrypto-keyword": {},
    "decrypto-small": {},
    "decrypto": {},
    "hangman": {},
    "higher-lower": {"n": 10},
    "hotter-colder": {"w": 3, "h": 3},
    "inkognito-table": {},
    "inkognito": {},
    "jotto": {},
    "liars-dice": {"dice": 2, "hidden": 2},
    "mastermind-lie": {"pegs": 2, "colours": 3},
    "mastermind": {"pegs": 3, "colours": 3},
    "minesweeper": {"rows": 3, "cols": 3, "mines": 2},
    "noisy-guess-who": {},
    "spyfall-joint": {"locations": 3, "players": 3},
    "spyfall": {"locations": 3, "players": 3},
    "treasure-hunt": {"n": 4},
    "turing-machine": {},
    "ulam-random": {"n": 4, "horizon": 4},
    "ulam": {"n": 4},
    "wordle": {"answers_only": "true"},
}
# a spec of each kind a strategy treats apart, for the default tier: plain with proofs
# and a static plan (mastermind, counterfeit-coin), lies (mastermind-lie, ulam), a cover
# goal (battleship) and random answers (noisy-guess-who). Rounds (turing-machine, whose
# every command loads for seconds) are in the end-to-end tier's whole matrix.
KINDS = ["mastermind", "counterfeit-coin", "mastermind-lie", "ulam", "battleship",
         "noisy-guess-who"]
# (spec, strategy) pairs that take minutes at the smallest size the spec has
MINUTES = {
    *(("hangman", s) for s in ("optimal", "optimal-worst")),
    *(("jotto", s) for s in ("optimal", "optimal-worst", "static", "lookahead",
                             "calibrated")),
    *(("wordle", s) for s in ("optimal-worst", "static", "lookahead")),
    *(("clue", s) for s in ("entropy", "minimax", "expected-size", "most-parts", "ismcts")),
}
# specs evaluated over a seeded sample of SECRETS secrets: their games are long, or their
# answers random; the others over every secret, so that exact strategies' proofs
# (`proven`, `upper_bound` in --json) are made and reported
SAMPLED = {"clue", "decrypto", "decrypto-keyword", "decrypto-small", "hangman",
           "inkognito", "inkognito-table", "jotto", "liars-dice", "noisy-guess-who",
           "spyfall", "spyfall-joint", "ulam-random", "wordle"}
SECRETS = 1
LIMIT = 120.0  # seconds a command may take at these params
# fixed work for the strategies that otherwise run on the clock (reproducible), and a
# small calibration for the look-ahead
FIXED = {"iterations": "8", "states": "30", "samples": "10"}


def sleuth() -> str:
    """The installed console script, beside this interpreter (the venv's)."""
    here = Path(sys.executable).parent / "sleuth"
    found = str(here) if here.exists() else shutil.which("sleuth")
    assert found, "the sleuth command is not installed (pip install -e .)"
    return found


def _sets(spec: str) -> list[str]:
    return [a for k, v in SMALL[spec].items() for a in ("--set", f"{k}={v}")]


def commands(spec: str, folder: str) -> list[tuple[str, bool, list[str]]]:
    """(what, as JSON, argv) of every command the matrix runs on `spec`; `tree` reads the
    tree the minimax run writes into `folder`, so it comes after it."""
    path = str(ROOT / "specs" / f"{spec}.yaml")
    out = []
    for as_json in (False, True):
        flag = ["--json"] if as_json else []
        out.append(("check", as_json, ["check", path, *_sets(spec), *flag]))
        out.append(("info", as_json, ["info", path, *_sets(spec), *flag]))
    tree = os.path.join(folder, f"{spec}.json")
    for name, cls in STRATEGIES.items():
        if (spec, name) in MINUTES:
            continue
        options = cls.options()
        extra = [a for k, v in FIXED.items() if k in options for a in (f"--{k}", v)]
        if "from_tree" in options:
            extra += ["--from-tree", tree]
        for as_json in (False, True):
            sample = ["--secrets", str(SECRETS)] if spec in SAMPLED else []
            argv = ["evaluate", path, *_sets(spec), "--strategy", name, *sample, *extra,
                    *(["--json"] if as_json else [])]
            if name == "minimax" and not as_json:
                argv += ["--tree", tree]
            out.append((name, as_json, argv))
    order = {"minimax": 0, "tree": 2}  # the tree is written before it is played back
    return sorted(out, key=lambda c: order.get(c[0], 1))


def run_script(argv: list[str]) -> subprocess.CompletedProcess:
    """One command through the installed script, in a process of its own."""
    env = {**os.environ, "COLUMNS": "120"}
    try:
        return subprocess.run([sleuth(), *argv], capture_output=True, text=True,
                              timeout=LIMIT, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as late:
        return subprocess.CompletedProcess(argv, None, str(late.stdout or ""),
                                           str(late.stderr or ""))


FORKED = r"""
import importlib, json, os, signal, sys, tempfile, time, traceback
from sleuth.solver.interfaces.cli import COMMANDS, run  # what the `sleuth` script calls

for module in {target.split(":")[0] for target in COMMANDS.values()}:  # imported once
    importlib.import_module(f"sleuth.solver.interfaces.commands.{module}")

def child(argv, out, err):
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.argv = ["sleuth", *argv]
    code = 0
    try:
        run()
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

def start(argv):
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        child(argv, out.fileno(), err.fileno())
    return pid, out, err

def read(f):
    f.seek(0)
    return f.read().decode("utf-8", "replace")

batches, limit = json.loads(sys.stdin.read())  # a batch's commands 2 at once
results = []
for batch in batches:
    going = {}
    queue = list(enumerate(batch))
    done = [None] * len(batch)
    while queue or going:
        while queue and len(going) < 2:
            k, argv = queue.pop(0)
            pid, out, err = start(argv)
            going[pid] = (k, out, err, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            for pid, (k, out, err, began) in list(going.items()):
                if time.monotonic() - began > limit:  # stopped: its code says so (None)
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    del going[pid]
                    done[k] = [None, read(out), read(err)]
            time.sleep(0.01)
            continue
        k, out, err, began = going.pop(pid)
        done[k] = [os.waitstatus_to_exitcode(status), read(out), read(err)]
        took = time.monotonic() - began
        print(f"{took:6.1f} s  sleuth {' '.join(batch[k])}", file=sys.stderr, flush=True)
    results += done
print(json.dumps(results))
"""


def run_forked(batches: list[list[list[str]]], limit: float = LIMIT
               ) -> list[subprocess.CompletedProcess]:
    """Each command of each batch in a child forked from one process that imported the
    script's entry point; batches one after another, a batch's commands two at a time,
    each stopped after `limit` seconds (its returncode then None)."""
    env = {**os.environ, "COLUMNS": "120"}
    done = subprocess.run([sys.executable, "-c", FORKED], input=json.dumps([batches, limit]),
                          stdout=subprocess.PIPE, text=True, env=env, timeout=3600,
                          check=True)
    return [subprocess.CompletedProcess([], code, out, err)
            for code, out, err in json.loads(done.stdout)]


def problems(what: str, as_json: bool, argv: list[str],
             done: subprocess.CompletedProcess) -> list[str]:
    """What is wrong with one command's ending (nothing: exit 0 or a clear exit 1)."""
    said = f"sleuth {' '.join(argv)}"
    out = []
    if done.returncode is None:
        out.append(f"{said}: still running after {LIMIT:.0f} s")
    elif done.returncode not in (0, 1):
        out.append(f"{said}: exit status {done.returncode}")
    if "Traceback" in done.stderr or "Traceback" in done.stdout:
        out.append(f"{said}: a traceback\n{done.stderr[-2000:]}")
    if done.returncode == 1 and not done.stderr.strip():
        out.append(f"{said}: exit 1 with nothing said on stderr")
    if as_json and done.returncode == 0:
        try:
            data = json.loads(done.stdout)
        except json.JSONDecodeError as err:
            out.append(f"{said}: --json output does not parse ({err})")
        else:
            if what == "check":
                ok = isinstance(data, list) and all(d["ok"] for d in data)
                if not ok:
                    out.append(f"{said}: check --json answers {data!r:.300}")
            elif not isinstance(data, dict):
                out.append(f"{said}: --json gives {type(data).__name__}, not an object")
            elif what not in ("check", "info") and not {"total", "worst"} <= set(data):
                out.append(f"{said}: evaluate --json without total and worst")
    return out


def _batches(spec: str, folder: str) -> list[list[tuple[str, bool, list[str]]]]:
    """The matrix of `spec` in two batches: check, info and minimax (whose tree `tree`
    plays back) first, then the rest."""
    matrix = commands(spec, folder)
    first = [c for c in matrix if c[0] in ("check", "info", "minimax")]
    return [first, [c for c in matrix if c not in first]]


def _found(batches: list[list[tuple[str, bool, list[str]]]],
           results: list[subprocess.CompletedProcess]) -> list[str]:
    flat = [c for batch in batches for c in batch]
    return [p for (what, as_json, argv), done in zip(flat, results, strict=True)
            for p in problems(what, as_json, argv, done)]


def json_matrix(specs: list[str], folder: str) -> list[str]:
    """The problems of every `--json` command of `specs`' matrix, each in a child of one
    process (and the minimax text runs that write the trees `tree` plays back)."""
    batches = [[c for c in b if c[1] or c[0] == "minimax"]
               for spec in specs for b in _batches(spec, folder)]
    results = run_forked([[argv for _, _, argv in batch] for batch in batches])
    return _found(batches, results)


def test_every_strategy_json_on_each_kind_of_spec(tmp_path):
    """Every strategy's `--json` (and check, info) on a spec of each kind."""
    found = json_matrix(KINDS, str(tmp_path))
    assert not found, "\n".join(found)


@pytest.mark.e2e
def test_every_json_command_ends_in_a_result_or_a_clear_error(tmp_path):
    """Every `--json` command of the matrix, every spec."""
    found = json_matrix(sorted(SMALL), str(tmp_path))
    assert not found, "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("spec", sorted(SMALL))
def test_every_command_through_the_installed_script(spec, tmp_path):
    """The matrix's text commands, each through the installed `sleuth` script (its
    `--json` commands run in the end-to-end tier's forked children, the same code)."""
    batches = [[c for c in batch if not c[1]] for batch in _batches(spec, str(tmp_path))]
    results = [run_script(argv) for _, _, argv in batches[0]]
    with ThreadPoolExecutor(2) as pool:
        results += list(pool.map(lambda c: run_script(c[2]), batches[1]))
    found = _found(batches, results)
    assert not found, "\n".join(found)


def test_every_bundled_spec_is_in_the_matrix():
    assert sorted(SMALL) == sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


def test_the_matrix_sees_a_json_output_that_does_not_parse():
    """The check itself: a traceback, a bad status or a non-JSON `--json` is caught."""
    bad = subprocess.CompletedProcess([], 1, stdout="", stderr="Traceback (most recent...")
    assert problems("entropy", True, ["evaluate"], bad)
    assert problems("entropy", True, ["evaluate"],
                    subprocess.CompletedProcess([], 0, stdout="total 5", stderr=""))
    assert problems("entropy", False, ["evaluate"],
                    subprocess.CompletedProcess([], 2, stdout="", stderr="usage"))
    assert not problems("entropy", True, ["evaluate"], subprocess.CompletedProcess(
        [], 0, stdout='{"total": 3, "worst": 2}', stderr=""))
