"""A design analysis in a child process, so that cancelling it takes effect at once.

An analysis may spend minutes inside one step (scoring every first move of a large
game), where no progress hook is called; a thread there cannot be stopped. The server
runs each analysis as `python -m sleuth.solver.interfaces.web.child`, which reads its
request as one JSON line on stdin and writes JSON lines on stdout: `{"progress":
[stage, done, total]}` as it goes, then `{"result": ...}` or `{"error": ...}`. Cancel
kills the child. `run_child` is the server's side.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from sleuth.compiler.api import SleuthError

POLL = 0.1  # seconds between looks at the job's cancel flag


def run_child(request: dict[str, Any], progress: Callable[[str, int, int], None]) -> Any:
    """Run the analysis `request` ({path, ref, params, strategy, secrets}) in a child,
    passing its progress on; `progress` raising (a cancelled job) kills the child."""
    child = subprocess.Popen([sys.executable, "-m", "sleuth.solver.interfaces.web.child"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    lines: list[dict[str, Any]] = []
    got = threading.Condition()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            with got:
                lines.append(message)
                got.notify()
        with got:
            lines.append({"end": True})
            got.notify()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    last = ("starting", 0, 0)
    try:
        assert child.stdin is not None
        child.stdin.write(json.dumps(request) + "\n")
        child.stdin.close()
        while True:
            with got:
                if not lines:
                    got.wait(POLL)
                taken, lines[:] = list(lines), []
            for message in taken:
                if "progress" in message:
                    last = tuple(message["progress"])
                elif "result" in message:
                    return message["result"]
                elif "error" in message:
                    raise SleuthError(message["error"]["message"],
                                      hint=message["error"].get("hint"))
                elif "end" in message:
                    raise SleuthError("the analysis stopped without an answer",
                                      hint="it may have run out of memory")
            progress(*last)  # raises when the job is cancelled
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        reader.join(timeout=1)


def main() -> None:
    """The child: one analysis, from the request on stdin, answered on stdout."""
    from sleuth.compiler.api import load_game, speak_as
    from sleuth.solver.evaluation.analysis import analyse
    from sleuth.solver.infoset.queries import Candidates
    from sleuth.solver.interfaces.web.resources import error_json
    from sleuth.solver.strategies import make_strategy

    def say(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    speak_as("api")
    try:
        request = json.loads(sys.stdin.readline())
        game = load_game(request["path"], request["params"] or None)
        candidates = Candidates(game)
        candidates.keep_matrices()
        chooser = make_strategy(request["strategy"], candidates)
        result = analyse(game, chooser, request["ref"], secrets=request["secrets"],
                         progress=lambda stage, done, total: say(
                             {"progress": [stage, done, total]})).to_json()
        say({"result": result})
    except SleuthError as err:
        say({"error": error_json(err)})


if __name__ == "__main__":
    main()


__all__ = ["run_child"]
