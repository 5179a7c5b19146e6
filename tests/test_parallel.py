"""The one runtime policy for compiled parallel code (compiler/parallel.py): every
threaded kernel goes through it, the safe layer loads wherever the `tbb` wheel is
installed (a venv included), and a threaded kernel's one-thread twin gives its results."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import metadata

import numpy as np
import pytest
from numba import prange

from sleuth.compiler.api import parallel
from tests.conftest import ROOT


def _parallel_keywords(path) -> list[int]:
    """The lines of `path` that pass `parallel=...` to a call (numba's njit / jit)."""
    tree = ast.parse(path.read_text(), str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and any(k.arg == "parallel" for k in node.keywords)]


def test_every_threaded_kernel_goes_through_the_policy():
    """No module but the policy compiles with `parallel=`: a kernel with prange loops is
    declared `@parallel.threaded(...)`, so it can fall back to its one-thread twin."""
    found = [f"{path.relative_to(ROOT)}:{line}"
             for folder in ("compiler", "solver", "sleuth")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if path != ROOT / "compiler" / "parallel.py"
             for line in _parallel_keywords(path)]
    assert found == []


def _has_tbb() -> bool:
    try:
        metadata.distribution("tbb")
    except metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _has_tbb(), reason="no tbb wheel for this platform")
def test_the_safe_layer_loads_where_the_tbb_wheel_is_installed():
    """In a fresh process, with no LD_LIBRARY_PATH: the wheel's library lives in the
    environment's lib/, which the loader does not search from a venv."""
    probe = ("from sleuth.compiler.api import parallel\nimport numba\n"
             "print(parallel.layer_loads(), numba.threading_layer())")
    env = {k: v for k, v in __import__("os").environ.items() if k != "LD_LIBRARY_PATH"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    assert out.stdout.split() == ["True", "tbb"]


@parallel.threaded(cache=False)
def _sum_of_squares(x: np.ndarray, pieces: int) -> np.ndarray:
    out = np.zeros(pieces, dtype=np.int64)
    n = x.shape[0]
    for k in prange(pieces):
        for i in range(k * n // pieces, (k + 1) * n // pieces):
            out[k] += x[i] * x[i]
    return out


def test_the_one_thread_twin_gives_the_threaded_results(thread_mode):
    x = np.arange(1_000, dtype=np.int64)
    want = [int((x[k * 1000 // 4:(k + 1) * 1000 // 4] ** 2).sum()) for k in range(4)]
    assert _sum_of_squares(x, 4).tolist() == want
    on = _sum_of_squares.dispatcher() is _sum_of_squares._threaded
    assert on == (thread_mode == "threads")
    assert parallel.threads() == (1 if thread_mode == "one thread"
                                  else __import__("numba").get_num_threads())


def test_a_kernel_may_not_choose_parallel_itself():
    with pytest.raises(TypeError):
        parallel.threaded(parallel=True)
