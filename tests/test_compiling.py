"""compiler/compiling.py: a compile is announced once, as it starts; a kernel read from
numba's cache is not a compile; nothing of numba is imported to listen."""

from __future__ import annotations

import os
import subprocess
import sys

KERNEL = """\
from numba import njit


@njit(cache=True)
def plus_one(x):
    return x + 1
"""

PROBE = """\
import sys
sys.path.insert(0, {folder!r})
from sleuth.compiler.api import compiling
assert "numba" not in sys.modules  # registering the note imports nothing
seen = []
compiling.on_first_compile(lambda: seen.append(compiling.compiling()))
from kernel import plus_one
plus_one(1)
plus_one(2.5)
print(seen, compiling.compiled() > 0, compiling.compiling())
"""


def _probe(folder, cache) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", PROBE.format(folder=str(folder))],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    return out.stdout.strip()


def test_the_first_compile_is_announced_once_and_a_cached_kernel_is_not(tmp_path):
    (tmp_path / "kernel.py").write_text(KERNEL)
    cache = tmp_path / "cache"
    # cold: two signatures compiled, the note called once, while compiling
    assert _probe(tmp_path, cache) == "[True] True False"
    # warm: both read from the cache, nothing compiled, no note
    assert _probe(tmp_path, cache) == "[] False False"
