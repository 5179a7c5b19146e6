"""What the built packages carry: no file of the wheel or the sdist holds Decrypto's official
keyword list (the decryptogame package's, AGPL), and both ship THIRD-PARTY.md."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest
from decryptogame.official_words import english

from tests.conftest import ROOT

JUNK = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                              ".pytest_cache", ".ruff_cache", ".hypothesis")
OFFICIAL = {w.upper() for w in english.words} | {w.upper().replace("-", "_")
                                                 for w in english.words}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """Every file of the sdist and of the wheel (built from that sdist), by name."""
    tmp = tmp_path_factory.mktemp("dist")
    shutil.copytree(ROOT, tmp / "src", ignore=JUNK)
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                    str(tmp / "out"), str(tmp / "src")], check=True, capture_output=True)
    (wheel,) = (tmp / "out").glob("*.whl")
    (sdist,) = (tmp / "out").glob("*.tar.gz")
    with zipfile.ZipFile(wheel) as z:
        wheel_files = {n: z.read(n) for n in z.namelist()}
    with tarfile.open(sdist) as t:
        sdist_files = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    return {"wheel": wheel_files, "sdist": sdist_files}


def official_share(data: bytes) -> float:
    """The share of the official list's 424 keywords that occur in a file as words."""
    words = set(re.findall(r"[A-Z][A-Z_-]*", data.decode("utf-8", "replace").upper()))
    return len(OFFICIAL & words) / len(english.words)


def test_the_measure_finds_the_list_where_it_is():
    listed = "\n".join(w.replace("-", "_") for w in english.words).encode()
    assert official_share(listed) == 1.0
    half = "\n".join(english.words[: len(english.words) // 2 + 1]).encode()
    assert official_share(half) > 0.5


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_no_file_holds_the_official_decrypto_list(built, kind):
    files = built[kind]
    assert any(n.endswith("specs/decrypto-keyword.yaml") for n in files)  # the specs are in
    shares = {name: official_share(data) for name, data in files.items()}
    worst = max(shares, key=shares.get)
    assert shares[worst] <= 0.5, f"{worst} holds {shares[worst]:.0%} of the official list"


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_third_party_notes_are_shipped(built, kind):
    (name,) = [n for n in built[kind] if n.endswith("/THIRD-PARTY.md")]
    assert built[kind][name] == (ROOT / "THIRD-PARTY.md").read_bytes()
    text = built[kind][name].decode()
    for data in ("wordle-answers.txt", "wordle-allowed.txt", "decrypto-words.txt"):
        assert data in text
