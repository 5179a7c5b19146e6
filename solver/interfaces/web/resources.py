"""The JSON API's routes, one group per resource (app.py assembles them): the specs on
offer, the sessions (worksheets), and the design analyses (jobs). Each group is a small
class over the one `Server` state; its handlers parse the request, run the work on a
worker thread, and answer JSON. Bad input is a SleuthError (400 in app.py)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sleuth.compiler.api import BudgetError, SleuthError, compiling, show_value
from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.interfaces.summary import heading
from sleuth.solver.interfaces.web.cache import give_back
from sleuth.solver.interfaces.web.child import run_child
from sleuth.solver.interfaces.web.forked import Forked
from sleuth.solver.interfaces.web.forms import action_forms
from sleuth.solver.interfaces.web.jobs import Jobs
from sleuth.solver.interfaces.web.library import Library
from sleuth.solver.interfaces.web.quotas import Quotas
from sleuth.solver.interfaces.web.uploads import MAX_DATA, MAX_UPLOAD, TooLarge, Unprocessable
from sleuth.solver.interfaces.web.worksheet import (
    AUTO,
    PAGE,
    Advice,
    Worksheet,
    list_sessions,
    new_session,
    open_worksheet,
)
from sleuth.solver.strategies import STRATEGIES

# an upload's request: its spec, and its data as base64 or text
MAX_BODY = MAX_UPLOAD + MAX_DATA * 4 // 3 + 65536
# any other request (a session, an observation, an analysis): refused unread beyond it
MAX_REQUEST = 64 * 1024
QUICK_AFTER = 0.5  # seconds after which a quick provisional query is worked out beside it
WAIT = 1.25  # seconds a suggestion request waits before it answers "pending" (202)
# seconds by which it answers, with a quick provisional query if one is ready: the
# promised 2 s, less room for the answer's own way to the page on a loaded machine
ANSWER = 1.75
PENDING = 32  # suggestions kept while they are worked out or not yet read
CHILDREN = 2 * (os.cpu_count() or 1)  # suggestions worked out at once, each in a child
ADVICE = (AUTO, "entropy", "minimax", "expected-size", "most-parts", "ises-sampled",
          "lookahead", "optimal", "random")  # what the page offers (a saved tree needs a file)


class NotFound(SleuthError):
    """No such session or job."""

    status = 404


# an absolute path in an error's text (after a space, a quote or a bracket): shown by its
# last part only, so that no answer names a path of the server's
ABSOLUTE = re.compile(r"""(?<=[\s'"(\[=])(?:/[^\s'"/:)\]]+)+/?|^(?:/[^\s'"/:)\]]+)+/?""")


def unrooted(text: str | None) -> str | None:
    """`text` with each absolute path replaced by its last part."""
    if text is None:
        return None
    return ABSOLUTE.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], text)


def error_json(err: SleuthError) -> dict[str, Any]:
    """An error as the API answers it: message, hint, location (the file's name only) and
    the whole text, with no path of the server's in any of them."""
    loc = None if err.loc is None else {"file": Path(str(err.loc.file)).name,
                                        "line": err.loc.line, "col": err.loc.col}
    return {"message": unrooted(err.message), "hint": unrooted(err.hint), "loc": loc,
            "text": unrooted(str(err))}


async def body(request: Request, limit: int = MAX_REQUEST) -> dict[str, Any]:
    """The request's JSON object, within `limit` bytes: a declared length over it is
    refused before a byte is read, and a chunked or undeclared body is counted as it
    arrives and refused as soon as it passes the limit (nothing past it is kept)."""
    too_large = TooLarge(f"the request is larger than {limit // 1024} KiB",
                         hint="an observation, a session or an analysis is a few lines "
                              "of JSON; a spec's data travels in an upload")
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise too_large
    chunks, read = [], 0
    async for chunk in request.stream():
        read += len(chunk)
        if read > limit:
            raise too_large
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw or b"{}", parse_constant=_not_a_number)
    except ValueError:
        raise SleuthError("the request body is not JSON") from None
    except RecursionError:
        raise SleuthError("the request body is JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise SleuthError("the request body must be a JSON object")
    return data


def _not_a_number(name: str) -> Any:
    raise SleuthError(f"{name} is not a value the API takes",
                      hint="numbers in a request are finite")


def params_of(value: Any) -> dict[str, Any]:
    """A spec's params, given as a JSON object or its text."""
    if isinstance(value, str):
        try:
            value = json.loads(value or "{}", parse_constant=_not_a_number)
        except (ValueError, RecursionError):
            raise SleuthError("params must be a JSON object") from None
    if not isinstance(value, dict):
        raise SleuthError("params must be a JSON object")
    return value


OPEN = 64  # worksheets kept open (their beliefs in memory); others reopen from file


@dataclass
class Server:
    """What every route group shares: the specs, the sessions' folder and open worksheets
    (at most OPEN, least recently used closed first, and each closed with its game when
    the library drops it), and the analysis jobs."""

    library: Library
    sessions: Path
    jobs: Jobs
    quotas: Quotas
    sheets: OrderedDict[str, Worksheet] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.sessions.mkdir(parents=True, exist_ok=True)
        self.library.dropped.append(self.close_game)

    def sheet(self, ident: str) -> Worksheet:
        """The open worksheet of a session, opened from its file the first time."""
        with self.lock:
            ws = self.sheets.get(ident)
            if ws is not None:
                self.sheets.move_to_end(ident)
                return ws
        try:
            ws = open_worksheet(self.library, self.sessions, ident)
        except SleuthError as err:
            raise NotFound(err.message, err.loc, err.hint) from None
        return self.keep(ws)

    def keep(self, ws: Worksheet) -> Worksheet:
        with self.lock:
            ws = self.sheets.setdefault(ws.id, ws)
            self.sheets.move_to_end(ws.id)
            while len(self.sheets) > OPEN:
                self.sheets.popitem(last=False)
        return ws

    def close_game(self, loaded: Any) -> None:
        """Close the worksheets on a game the library dropped (they reopen when asked)."""
        with self.lock:
            for ident in [i for i, ws in self.sheets.items() if ws.loaded is loaded]:
                del self.sheets[ident]


class Specs:
    """GET /api/specs, POST /api/specs (an upload), GET /api/spec?ref=R&params=JSON."""

    def __init__(self, server: Server):
        self.server = server

    def routes(self) -> list[Route]:
        return [Route("/api/specs", self.list, methods=["GET"]),
                Route("/api/specs", self.upload, methods=["POST"]),
                Route("/api/spec", self.get)]

    async def list(self, request: Request) -> Response:
        library = self.server.library
        return JSONResponse({"specs": library.refs(), "landing": library.landing(),
                             "strategies": list(ADVICE), "max_upload": MAX_UPLOAD})

    async def upload(self, request: Request) -> Response:
        data = await body(request, MAX_BODY)

        def upload() -> str:
            self.server.quotas.new_upload(len(json.dumps(data)))
            return self.server.library.upload(data)

        ref = await run_in_threadpool(upload)
        return JSONResponse({"ref": ref}, status_code=201)

    async def get(self, request: Request) -> Response:
        ref = request.query_params.get("ref", "")
        params = params_of(request.query_params.get("params", "{}"))
        return JSONResponse(await run_in_threadpool(self.summary, ref, params))

    def summary(self, ref: str, params: dict[str, Any]) -> dict[str, Any]:
        """The spec at these params. A game too large to count at them still gives its
        params and forms (so the page can narrow them), with null counts and the
        budget's `error`."""
        game = self.server.library.game(ref, params).game
        counted: dict[str, Any] = {"hypotheses": None, "entropy_bits": None, "error": None}
        try:
            prior = prior_belief(game)
            counted.update(hypotheses=prior.size, entropy_bits=prior.entropy_bits())
        except BudgetError as err:
            counted["error"] = error_json(err)
        return {"ref": ref, "game": game.name, "title": heading(game),
                "about": game.model.about,
                "params": {k: show_value(v) for k, v in game.model.params.items()},
                "secret": [{"name": v.name, "domain": v.domain.describe()}
                           for v in game.model.secret],
                **counted, "forms": action_forms(game)}


class Sessions:
    """The worksheets: list, create, read, observe, undo, redo, suggest."""

    def __init__(self, server: Server):
        self.server = server
        # suggestions being worked out, by (session, steps, strategy, top), and quick
        # first answers, by (session, steps): a request that outwaits WAIT answers by
        # ANSWER with 202 "pending" (saying whether kernels are being compiled, with the
        # quick query when it is ready) and the page asks again, finding the same work
        self.pending: dict[tuple, asyncio.Future] = {}
        self.children: dict[tuple, Forked] = {}  # the pending work's children, by key
        server.library.dropped.append(self.dropped)
        self.room = threading.BoundedSemaphore(CHILDREN)

    def routes(self) -> list[Route]:
        return [Route("/api/sessions", self.list, methods=["GET"]),
                Route("/api/sessions", self.create, methods=["POST"]),
                Route("/api/sessions/{ident}", self.get),
                Route("/api/sessions/{ident}/observe", self.observe, methods=["POST"]),
                Route("/api/sessions/{ident}/undo", self.undo, methods=["POST"]),
                Route("/api/sessions/{ident}/redo", self.redo, methods=["POST"]),
                Route("/api/sessions/{ident}/suggest", self.suggest)]

    async def sheet(self, request: Request) -> Worksheet:
        return await run_in_threadpool(self.server.sheet, request.path_params["ident"])

    async def list(self, request: Request) -> Response:
        q = request.query_params
        try:
            offset, limit = int(q.get("offset", "0")), int(q.get("limit", str(PAGE)))
        except ValueError:
            raise SleuthError("offset and limit must be numbers") from None
        return JSONResponse(await run_in_threadpool(
            list_sessions, self.server.library, self.server.sessions, offset, limit))

    async def create(self, request: Request) -> Response:
        data = await body(request)

        def make() -> dict[str, Any]:
            self.server.quotas.new_session()
            ws = new_session(self.server.library, self.server.sessions,
                             str(data.get("spec", "")), params_of(data.get("params", {})))
            self.server.keep(ws)
            return ws.state()

        return JSONResponse(await run_in_threadpool(make), status_code=201)

    async def get(self, request: Request) -> Response:
        ws = await self.sheet(request)
        return JSONResponse(await run_in_threadpool(ws.state))

    async def observe(self, request: Request) -> Response:
        data = await body(request)
        ws = await self.sheet(request)
        await run_in_threadpool(self.server.quotas.room, len(json.dumps(data)))
        outcome = data.get("outcome", data.get("feedback", data.get("answer")))
        args = data.get("args") or {}
        if not isinstance(args, dict):
            raise SleuthError("args must be a JSON object of the query's arguments",
                              hint='e.g. {"query": "guess", "args": {"g": [1, 1, 2, 2]}, ...}')
        return JSONResponse(await run_in_threadpool(
            ws.observe, str(data.get("query", "")), args, outcome,
            data.get("repeat") is True))

    async def undo(self, request: Request) -> Response:
        ws = await self.sheet(request)
        return JSONResponse(await run_in_threadpool(ws.undo))

    async def redo(self, request: Request) -> Response:
        ws = await self.sheet(request)
        return JSONResponse(await run_in_threadpool(ws.redo_step))

    async def suggest(self, request: Request) -> Response:
        ws = await self.sheet(request)
        q = request.query_params
        strategy = q.get("strategy", AUTO)
        if strategy not in ADVICE:
            raise SleuthError(f"the page offers the strategies {', '.join(ADVICE)}")
        try:
            top = int(q.get("top", "5"))
        except ValueError:
            raise SleuthError("top must be a number") from None
        top = min(max(top, 0), 50)
        key = (ws.id, len(ws.events), strategy, top)
        self.moved_on(ws.id, key[1])
        start = time.monotonic()
        work = self.working(key, self.forked(key, ws, lambda: ws.advice(strategy, top)))
        quick = None
        try:
            for until in (QUICK_AFTER, WAIT):
                try:
                    answer = await asyncio.wait_for(asyncio.shield(work), max(
                        0.0, until - (time.monotonic() - start)))
                    break
                except TimeoutError:
                    if quick is None:  # a provisional query is worked out beside it
                        quick = self.working(key[:2], self.forked(key[:2], ws,
                                                                  ws.first_guess))
            else:
                try:
                    first = await asyncio.wait_for(asyncio.shield(quick), max(
                        0.0, ANSWER - (time.monotonic() - start)))
                except (TimeoutError, SleuthError):  # none ready, or none the game has
                    first = None
                child = self.children.get(key)
                return JSONResponse({"pending": True, "thinking": True,
                                     "compiling": compiling.compiling() or bool(
                                         child and child.compiling),
                                     "provisional": first}, status_code=202)
        finally:
            if work.done():
                self.pending.pop(key, None)
        return JSONResponse(answer)

    def working(self, key: tuple, start: Callable[[], Any]) -> asyncio.Future:
        """The work under `key`, started on a worker thread unless it is going on already
        (or done and not yet read); the oldest finished work is forgotten past PENDING."""
        work = self.pending.get(key)
        if work is None:
            for old in [k for k, w in self.pending.items() if w.done()][:-PENDING]:
                del self.pending[old]
            work = asyncio.ensure_future(run_in_threadpool(start))
            work.add_done_callback(_seen)
            self.pending[key] = work
        return work

    def forked(self, key: tuple, ws: Worksheet,
               advice_of: Callable[[], Advice]) -> Callable[[], Any]:
        """Run on a worker thread: take the worksheet's present step (`advice_of`), then
        work it out here if it is cheap, else in a forked child (web/forked.py), at most
        CHILDREN at once."""
        def run() -> Any:
            advice = advice_of()
            if advice.cheap:
                return advice.run()
            child = Forked(advice.run, ws.loaded)
            self.children[key] = child
            try:
                with self.room:
                    return child.run()
            finally:
                if self.children.get(key) is child:
                    del self.children[key]
                if child.loaded.dropped:  # the last hold on a game the cache let go of
                    del advice, child
                    give_back()

        return run

    def dropped(self, loaded: Any) -> None:
        """The library let go of a game: the suggestions still worked out on it are
        given up, so that its memory goes back at once."""
        self.give_up(lambda key, child: child.loaded is loaded)

    def moved_on(self, ident: str, step: int) -> None:
        """A page asked about session `ident` at `step`: the suggestions still worked out
        for its other steps are given up."""
        self.give_up(lambda key, child: key[0] == ident and key[1] != step)

    def give_up(self, which: Callable[[tuple, Forked], bool]) -> None:
        """Kill the children of the pending work `which` picks, and forget that work."""
        for key, child in list(self.children.items()):
            if which(key, child):
                child.kill()
                self.pending.pop(key, None)

def _seen(work: asyncio.Future) -> None:
    """Mark a finished work's error as seen: work given up is never awaited again."""
    if not work.cancelled():
        work.exception()


class Analyses:
    """POST /api/analyses starts a design analysis as a job; GET reads its progress and
    result; DELETE cancels it."""

    def __init__(self, server: Server):
        self.server = server

    def routes(self) -> list[Route]:
        return [Route("/api/analyses", self.start, methods=["POST"]),
                Route("/api/analyses/{ident}", self.get, methods=["GET"]),
                Route("/api/analyses/{ident}", self.cancel, methods=["DELETE"])]

    async def start(self, request: Request) -> Response:
        data = await body(request)
        ref, params = str(data.get("spec", "")), params_of(data.get("params", {}))
        strategy = str(data.get("strategy", "entropy"))
        secrets = data.get("secrets")
        if strategy not in STRATEGIES or strategy == "tree":
            raise SleuthError(f"unknown strategy '{strategy}'")
        if secrets is not None and (not isinstance(secrets, int) or secrets < 1):
            raise SleuthError("secrets must be a positive number")
        loaded = await run_in_threadpool(self.server.library.game, ref, params)
        game = loaded.game  # loaded here: a bad ref or param is a 400 now, not a job's
        request_ = {"path": self.server.library.path(ref), "ref": ref, "params": params,
                    "strategy": strategy, "secrets": secrets}

        def work(progress: Any) -> dict[str, Any]:
            return run_child(request_, progress)  # a child process: cancel kills it

        job = self.server.jobs.start(f"{game.name} {json.dumps(params)} {strategy}", work,
                                     error_json)
        return JSONResponse(job.to_json(), status_code=202)

    async def get(self, request: Request) -> Response:
        try:
            return JSONResponse(self.server.jobs.get(request.path_params["ident"]).to_json())
        except SleuthError as err:
            raise NotFound(err.message) from None

    async def cancel(self, request: Request) -> Response:
        try:
            return JSONResponse(self.server.jobs.cancel(request.path_params["ident"]).to_json())
        except SleuthError as err:
            raise NotFound(err.message) from None


__all__ = ["ADVICE", "MAX_BODY", "Analyses", "NotFound", "Server", "Sessions", "Specs",
           "TooLarge", "Unprocessable", "body", "error_json", "params_of"]
