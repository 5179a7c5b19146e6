"""Fuzz Sleuth the way issue 15's audit did: generated expressions, mutated spec files,
and mutated specs through the real `sleuth check`, each case in a worker process under
an address-space limit and a per-case timeout.

Each case ends in one of:
  ok               the spec loaded and was exercised (hypotheses, feedback, interpreter)
  clean error      a SleuthError: a message with a location and a hint, as a user sees
  traceback        any other exception (for `sleuth check`: a traceback on stderr, or
                   an exit status other than 0 and 1)
  hang             no answer within the timeout (the worker is killed and replaced)
  out of memory    MemoryError under the limit, or the worker died
  mismatch         the vectorised kernels and the reference interpreter disagree

    python benchmarks/fuzz.py [--expressions 100000] [--specs 2000] [--cli 150]
                              [--seed 0] [--timeout 10] [--memory-gb 4] [--workers 2]

It prints a table, and writes the failing cases (up to 20 per kind and target) to
--report (default fuzz-report.json), so that each can be replayed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import subprocess
import sys
import time
import traceback
from multiprocessing.connection import Connection, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))
KINDS = ["ok", "clean error", "traceback", "hang", "out of memory", "mismatch"]

BASE = """\
game: Fuzz
params: {n: 3, label: hi, big: 4611686018427387904}
domains:
  D: {range: "1..n"}
  Kind: {enum: [heavy, light]}
secret:
  code: {seq: D, len: n}
  kind: Kind
  s: {set: D}
queries:
  guess:
    args: {g: {seq: D, len: n}, k: Kind, t: {set: D, size: "0..2"}}
    feedback: |-
      EXPR
"""

# ----------------------------------------------------------------------------- generators

NAMES = ["code", "kind", "s", "g", "k", "t", "n", "label", "big", "D", "Kind", "heavy",
         "light", "i", "j", "x", "true", "false", "zz"]
FUNCS = ["count", "sum", "prod", "min", "max", "size", "len", "abs", "first", "exists",
         "forall", "disjoint", "union", "alldifferent", "int", "float", "sqrt", "exp", "log",
         "lgamma", "factorial", "onehot", "nope"]
INTS = ["0", "1", "2", "3", "7", "12", "63", "64", "127", "128", "255", "256", "32768",
        "2147483648", "4611686018427387904", "9223372036854775808", "1" + "0" * 30,
        "9" * 5000]
FLOATS = ["0.5", "1.0", "2.5e0", "1e19", "1e308", "1e309", "1e-400", "9.2e18"]
STRINGS = ['"a"', "'heavy'", '"left"', '"\\x"', '"\\N{BOGUS}"', '"\\u12"', '"ok\\n"', "'"]
OPS = ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "and", "or",
       "in", "not in", "=", ".."]
NOISE = ["(", ")", "[", "]", ",", ":", "for", "if", "then", "else", "lambda", "__import__",
         "{", "}", "'", '"', "\\", "$", "@", "#", "\t", "é", "\x00"]


def expression(rng: random.Random, depth: int = 0) -> str:
    """A random expression of Sleuth's language: mostly well formed, sometimes not."""
    if depth > 5 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.5:
            return rng.choice(NAMES)
        if r < 0.75:
            return rng.choice(INTS)
        if r < 0.9:
            return rng.choice(FLOATS)
        return rng.choice(STRINGS)
    sub = lambda: expression(rng, depth + 1)  # noqa: E731
    r = rng.random()
    if r < 0.3:
        return f"{sub()} {rng.choice(OPS)} {sub()}"
    if r < 0.4:
        return f"{rng.choice(['-', 'not '])}{sub()}"
    if r < 0.55:
        return f"{rng.choice(FUNCS)}({', '.join(sub() for _ in range(rng.randint(0, 3)))})"
    if r < 0.65:
        loop = f"{rng.choice(['i', 'x', 'i, j'])} in {sub()}"
        cond = f" if {sub()}" if rng.random() < 0.4 else ""
        return f"{rng.choice(FUNCS)}({sub()} for {loop}{cond})"
    if r < 0.72:
        return f"if {sub()} then {sub()} else {sub()}"
    if r < 0.8:
        return f"{sub()}[{sub()}]"
    if r < 0.85:
        return f"[{', '.join(sub() for _ in range(rng.randint(0, 3)))}]"
    if r < 0.9:
        return f"({sub()})"
    if r < 0.93:
        return f"{sub()}.{rng.choice(['x', 'lo', 'heavy', '__class__'])}"
    if r < 0.96:  # deep nesting
        k = rng.choice([50, 101, 300, 400, 1000])
        opener = rng.choice(["-", "abs(", "[", "(", "not "])
        closer = {"abs(": ")", "[": "]", "(": ")"}.get(opener, "")
        return opener * k + sub() + closer * k
    text = sub()
    i = rng.randint(0, len(text))
    return text[:i] + rng.choice(NOISE) + text[i:]


INT_LEAVES = ["code[0]", "code[2]", "g[1]", "n", "big", "-big", "size(s)", "size(t)",
              "count(code[i] == g[i] for i in 0..n-1)", "sum(c for c in code)", "int(kind)"]


def integer(rng: random.Random, depth: int = 0) -> str:
    """A well-typed integer expression with extreme constants: the kernels' edge cases."""
    if depth > 4 or rng.random() < 0.3:
        return rng.choice(INT_LEAVES + INTS[:-3] + ["int(1e19)", "int(9.2e18 * n)"])
    sub = lambda: integer(rng, depth + 1)  # noqa: E731
    r = rng.random()
    if r < 0.45:
        return f"({sub()} {rng.choice(['+', '-', '*', '//', '%', '**'])} {sub()})"
    if r < 0.55:
        return f"-({sub()})"
    if r < 0.65:
        return f"{rng.choice(['abs', 'int'])}({sub()})"
    if r < 0.75:
        return f"{rng.choice(['min', 'max'])}({sub()}, {sub()})"
    if r < 0.85:
        return f"(if {sub()} > {sub()} then {sub()} else {sub()})"
    return f"{rng.choice(['sum', 'prod'])}({sub()} for i in 0..{rng.choice(['1', 'n'])})"


def mutate(text: str, rng: random.Random) -> str:
    """A spec file with one to four random edits (characters, lines, tokens, YAML tricks)."""
    for _ in range(rng.randint(1, 4)):
        if not text:
            break
        i, j = rng.randrange(len(text)), rng.randrange(len(text))
        lines = text.split("\n")
        li = rng.randrange(len(lines))
        op = rng.choice(["delete", "swap", "copy", "dup_line", "drop_line", "token", "yaml"])
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "swap":
            chars = list(text)
            chars[i], chars[j] = chars[j], chars[i]
            text = "".join(chars)
        elif op == "copy":
            text = text[:i] + text[j] + text[i:]
        elif op == "dup_line":
            text = "\n".join(lines[:li + 1] + [lines[li]] + lines[li + 1:])
        elif op == "drop_line":
            text = "\n".join(lines[:li] + lines[li + 1:])
        elif op == "token":
            token = rng.choice(["0", "99", "-1", "..", "(", ")", "[", "]", "{", "}", ":", "no",
                                "'", '"', "#", " ", "\t", "if", "for", "x", "1e9", "**",
                                "9" * 25, "1e400", "\\x"])
            text = text[:i] + token + text[i:]
        else:
            trick = rng.choice(["!!int abc", "!!python/name:os.system", "&a [1, *a]",
                                "{from: /etc/passwd}", "{from: ../../x.csv}", "*nope",
                                "[" * 300 + "]" * 300, "!!timestamp 2001-13-45"])
            text = "\n".join(lines[:li] + [lines[li].split(":")[0] + ": " + trick]
                             + lines[li + 1:])
    return text


# ----------------------------------------------------------------------------- cases

def exercise(text: str, file: str) -> str:
    """Load and use a spec; 'ok', or 'mismatch: ...' when kernel and interpreter differ."""
    import numpy as np

    from sleuth.compiler import Budget
    from sleuth.compiler.errors import EvaluationError
    from sleuth.compiler.game import load_game_text

    game = load_game_text(text, file, budget=Budget(max_hypotheses=20_000, memory_mb=64))
    hyps = game.hypotheses
    for action in game.model.queries:
        space = game.space(action.name)
        ranks = next(space.legal_ranks(chunk=64), np.array([], dtype=np.int64))[:3]
        if action.feedback is None or len(ranks) == 0:
            continue
        sample = np.arange(min(hyps.size, 20))
        codes = game.feedback_matrix(action.name, ranks, sample)
        coder = game.coder(action.name)
        for a, r in enumerate(ranks):
            args = space.value(int(r))
            for b, h in enumerate(sample):
                try:
                    expected = game.reference_feedback(action.name, args, hyps.value(int(h)))
                except EvaluationError:
                    continue
                got = coder.decode(int(codes[a, b]))
                if got != expected:
                    return f"mismatch: {action.name}{args} on {hyps.value(int(h))}: " \
                           f"kernel {got}, interpreter {expected}"
    return "ok"


def run_api(text: str, file: str) -> tuple[str, str]:
    from sleuth.compiler import SleuthError

    try:
        outcome = exercise(text, file)
    except SleuthError as e:
        return "clean error", str(e).splitlines()[0][:200]
    except MemoryError:
        return "out of memory", "MemoryError"
    except Exception:  # noqa: BLE001 -- counting them is the point
        return "traceback", traceback.format_exc(limit=-3)[-600:]
    if outcome.startswith("mismatch"):
        return "mismatch", outcome
    return "ok", ""


def run_cli(text: str, file: str, timeout: float) -> tuple[str, str]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / file
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        try:
            done = subprocess.run([sys.executable, "-m", "sleuth", "check", str(path)],
                                  capture_output=True, text=True, timeout=timeout,
                                  errors="replace")
        except subprocess.TimeoutExpired:
            return "hang", "timeout"
    if "Traceback" in done.stderr or done.returncode not in (0, 1):
        return "traceback", f"exit {done.returncode}: {done.stderr[-600:]}"
    return ("ok", "") if done.returncode == 0 else ("clean error", done.stderr[:200])


def worker(conn: Connection, memory_gb: float, timeout: float) -> None:
    limit = int(memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(10_000)
    while True:
        job = conn.recv()
        if job is None:
            return
        target, text, file = job
        if target == "cli":
            conn.send(run_cli(text, file, timeout))
        else:
            conn.send(run_api(text, file))


# ----------------------------------------------------------------------------- driver

class Pool:
    """Workers fed one case at a time; a worker that overruns is killed and replaced."""

    def __init__(self, n: int, memory_gb: float, timeout: float):
        self.memory_gb, self.timeout = memory_gb, timeout
        self.ctx = mp.get_context("fork")
        self.slots = [self.spawn() for _ in range(n)]

    def spawn(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=worker, args=(child, self.memory_gb, self.timeout),
                             daemon=True)
        p.start()
        return {"proc": p, "conn": parent, "job": None, "since": 0.0}

    def run(self, jobs, record) -> None:
        jobs = iter(jobs)
        pending = True
        while True:
            for slot in self.slots:
                if slot["job"] is None and pending:
                    job = next(jobs, None)
                    if job is None:
                        pending = False
                        continue
                    slot["job"], slot["since"] = job, time.monotonic()
                    slot["conn"].send(job[1:])
            busy = [s for s in self.slots if s["job"] is not None]
            if not busy:
                return
            ready = wait([s["conn"] for s in busy], timeout=0.5)
            now = time.monotonic()
            for k, slot in enumerate(self.slots):
                if slot["job"] is None:
                    continue
                key = slot["job"][0]
                if slot["conn"] in ready:
                    try:
                        kind, detail = slot["conn"].recv()
                    except (EOFError, OSError):
                        kind, detail = "out of memory", "the worker died"
                        self.replace(k)
                    record(key, kind, detail)
                    slot["job"] = None
                elif not slot["proc"].is_alive():
                    record(key, "out of memory", f"worker exit {slot['proc'].exitcode}")
                    self.replace(k)
                elif now - slot["since"] > self.timeout + 2:
                    record(key, "hang", f"over {self.timeout} s")
                    self.replace(k)

    def replace(self, k: int) -> None:
        old = self.slots[k]
        old["proc"].kill()
        old["proc"].join()
        self.slots[k] = self.spawn()

    def close(self) -> None:
        for slot in self.slots:
            slot["conn"].send(None)
            slot["proc"].join(timeout=5)
            if slot["proc"].is_alive():
                slot["proc"].kill()


def cases(args):
    rng = random.Random(args.seed)
    texts = {p.stem: p.read_text() for p in SPECS}
    for k in range(args.expressions):
        expr = expression(rng) if k % 3 else \
            f"if {integer(rng)} {rng.choice(['<', '=='])} {integer(rng)} then 1 else 0"
        yield ("expressions", k), "api", BASE.replace("EXPR", expr), "fuzz.yaml"
    names = sorted(texts)
    for k in range(args.specs):
        name = names[k % len(names)]
        yield ("spec mutations", k), "api", mutate(texts[name], rng), f"{name}.yaml"
    for k in range(args.cli):
        name = names[k % len(names)]
        yield ("sleuth check", k), "cli", mutate(texts[name], rng), f"{name}.yaml"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expressions", type=int, default=100_000)
    ap.add_argument("--specs", type=int, default=2_000)
    ap.add_argument("--cli", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    ap.add_argument("--memory-gb", type=float, default=4.0, help="address space per worker")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--report", default="fuzz-report.json")
    args = ap.parse_args(argv)

    texts: dict[tuple[str, int], str] = {}
    table: dict[str, dict[str, int]] = {}
    failures: dict[str, list[dict]] = {}
    start = time.perf_counter()

    def jobs():
        for key, target, text, file in cases(args):
            texts[key] = text
            yield key, target, text, file

    def record(key, kind, detail):
        target = key[0]
        table.setdefault(target, dict.fromkeys(KINDS, 0))[kind] += 1
        text = texts.pop(key)
        if kind not in ("ok", "clean error"):
            bucket = failures.setdefault(f"{target}: {kind}", [])
            if len(bucket) < 20:
                bucket.append({"case": key[1], "text": text, "detail": detail})
        done = sum(sum(row.values()) for row in table.values())
        if done % 5000 == 0:
            print(f"  {done:,} cases, {time.perf_counter() - start:,.0f} s", file=sys.stderr,
                  flush=True)

    pool = Pool(args.workers, args.memory_gb, args.timeout)
    try:
        pool.run(jobs(), record)
    finally:
        pool.close()
    elapsed = time.perf_counter() - start
    print(f"seed {args.seed}, {args.workers} workers, {args.memory_gb:g} GiB address space "
          f"and {args.timeout:g} s per case, {elapsed:,.0f} s in all\n")
    print("| target | cases | " + " | ".join(KINDS) + " |")
    print("|---|---:|" + "---:|" * len(KINDS))
    for target, row in table.items():
        print(f"| {target} | {sum(row.values()):,} | "
              + " | ".join(f"{row[k]:,}" for k in KINDS) + " |")
    Path(args.report).write_text(json.dumps(failures, indent=1))
    bad = sum(row[k] for row in table.values() for k in KINDS[2:])
    print(f"\n{bad} failing cases" + (f", written to {args.report}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
