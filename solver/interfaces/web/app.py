"""The web worksheet's server: a Starlette app with the JSON API the page uses.

Every action of the page is one of these requests (docs/api.md lists them):

    GET    /api/specs                       the specs on offer
    POST   /api/specs                       upload a spec ({name, text}): checked, kept
    GET    /api/spec?ref=R&params=JSON      a spec's summary and its observation forms
    GET    /api/sessions                    the session files in the folder
    POST   /api/sessions                    a new session ({spec, params})
    GET    /api/sessions/ID                 a worksheet: marginals, history, ...
    POST   /api/sessions/ID/observe         {query, args, outcome}
    POST   /api/sessions/ID/undo            the last step taken back
    POST   /api/sessions/ID/redo            an undone step again
    GET    /api/sessions/ID/suggest?strategy=S&top=K
    POST   /api/analyses                    a design analysis ({spec, params, strategy,
                                            secrets}): a job
    GET    /api/analyses/ID                 its progress, then its result
    DELETE /api/analyses/ID                 cancel it

Errors are JSON `{"error": {message, hint, loc}}` with status 400 (bad input; nothing
changed), 404 (no such session or job) or 413 (too large). Computations run on worker
threads, one at a time per worksheet. The page itself (static/) ships in the package:
no script or style comes from elsewhere, and its Content-Security-Policy says so.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sleuth.compiler.api import SleuthError, show_value
from sleuth.solver.evaluation.analysis import analyse
from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.interfaces.web.forms import action_forms
from sleuth.solver.interfaces.web.jobs import Jobs
from sleuth.solver.interfaces.web.library import MAX_UPLOAD, Library
from sleuth.solver.interfaces.web.worksheet import (
    AUTO,
    Worksheet,
    list_sessions,
    new_session,
    open_worksheet,
)
from sleuth.solver.strategies import STRATEGIES, make_strategy

STATIC = Path(__file__).parent / "static"
MAX_BODY = MAX_UPLOAD + 4096  # a JSON request: an uploaded spec and its name at most
ADVICE = (AUTO, "entropy", "minimax", "expected-size", "most-parts", "ises-sampled",
          "lookahead", "optimal", "random")  # what the page offers (a saved tree needs a file)
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                               "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class NotFound(SleuthError):
    """No such session or job."""


class TooLarge(SleuthError):
    """A request body over the limit."""


class SecurityHeaders:
    """ASGI middleware: every response gets HEADERS (those it does not set itself)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k.lower().encode(), v.encode()) for k, v in HEADERS.items()
                    if k.lower().encode() not in have]
            await send(message)

        await self.app(scope, receive, with_headers)


def error_json(err: SleuthError) -> dict[str, Any]:
    loc = None if err.loc is None else {"file": Path(str(err.loc.file)).name,
                                        "line": err.loc.line, "col": err.loc.col}
    return {"message": err.message, "hint": err.hint, "loc": loc, "text": str(err)}


def create_app(specs: list[str], sessions: Path, workers: int = 2) -> Starlette:
    """The app serving `specs` (and the bundled ones), keeping sessions in `sessions`."""
    sessions.mkdir(parents=True, exist_ok=True)
    library = Library(specs, sessions)
    jobs = Jobs(workers)
    sheets: dict[str, Worksheet] = {}
    sheets_lock = threading.Lock()

    def sheet(ident: str) -> Worksheet:
        with sheets_lock:
            ws = sheets.get(ident)
        if ws is None:
            try:
                ws = open_worksheet(library, sessions, ident)
            except SleuthError as err:
                raise NotFound(err.message, err.loc, err.hint) from None
            with sheets_lock:
                ws = sheets.setdefault(ident, ws)
        return ws

    async def body(request: Request) -> dict[str, Any]:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_BODY:
            raise TooLarge(f"the request is larger than {MAX_BODY // 1024} KiB")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise TooLarge(f"the request is larger than {MAX_BODY // 1024} KiB")
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise SleuthError("the request body is not JSON") from None
        except RecursionError:
            raise SleuthError("the request body is JSON nested too deeply") from None
        if not isinstance(data, dict):
            raise SleuthError("the request body must be a JSON object")
        return data

    def params_of(value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            try:
                value = json.loads(value or "{}")
            except (ValueError, RecursionError):
                raise SleuthError("params must be a JSON object") from None
        if not isinstance(value, dict):
            raise SleuthError("params must be a JSON object")
        return value

    # -- handlers

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def get_specs(request: Request) -> Response:
        return JSONResponse({"specs": library.refs(), "strategies": list(ADVICE),
                             "max_upload": MAX_UPLOAD})

    async def post_spec(request: Request) -> Response:
        data = await body(request)
        ref = await run_in_threadpool(library.upload, str(data.get("name", "upload.yaml")),
                                      str(data.get("text", "")))
        return JSONResponse({"ref": ref}, status_code=201)

    async def get_spec(request: Request) -> Response:
        ref = request.query_params.get("ref", "")
        params = params_of(request.query_params.get("params", "{}"))
        return JSONResponse(await run_in_threadpool(summary, ref, params))

    def summary(ref: str, params: dict[str, Any]) -> dict[str, Any]:
        game = library.game(ref, params).game
        prior = prior_belief(game)
        return {"ref": ref, "game": game.name, "about": game.model.about,
                "params": {k: show_value(v) for k, v in game.model.params.items()},
                "secret": [{"name": v.name, "domain": v.domain.describe()}
                           for v in game.model.secret],
                "hypotheses": prior.size, "entropy_bits": prior.entropy_bits(),
                "forms": action_forms(game)}

    async def get_sessions(request: Request) -> Response:
        return JSONResponse({"sessions": list_sessions(sessions)})

    async def post_session(request: Request) -> Response:
        data = await body(request)

        def make() -> dict[str, Any]:
            ws = new_session(library, sessions, str(data.get("spec", "")),
                             params_of(data.get("params", {})))
            with sheets_lock:
                sheets[ws.id] = ws
            return ws.state()

        return JSONResponse(await run_in_threadpool(make), status_code=201)

    async def get_session(request: Request) -> Response:
        ws = await run_in_threadpool(sheet, request.path_params["ident"])
        return JSONResponse(await run_in_threadpool(ws.state))

    async def observe(request: Request) -> Response:
        data = await body(request)
        ws = await run_in_threadpool(sheet, request.path_params["ident"])
        outcome = data.get("outcome", data.get("feedback", data.get("answer")))
        return JSONResponse(await run_in_threadpool(
            ws.observe, str(data.get("query", "")), data.get("args") or {}, outcome))

    async def undo(request: Request) -> Response:
        ws = await run_in_threadpool(sheet, request.path_params["ident"])
        return JSONResponse(await run_in_threadpool(ws.undo))

    async def redo(request: Request) -> Response:
        ws = await run_in_threadpool(sheet, request.path_params["ident"])
        return JSONResponse(await run_in_threadpool(ws.redo_step))

    async def suggest(request: Request) -> Response:
        ws = await run_in_threadpool(sheet, request.path_params["ident"])
        q = request.query_params
        strategy = q.get("strategy", AUTO)
        if strategy not in ADVICE:
            raise SleuthError(f"the page offers the strategies {', '.join(ADVICE)}")
        try:
            top = int(q.get("top", "5"))
        except ValueError:
            raise SleuthError("top must be a number") from None
        return JSONResponse(await run_in_threadpool(ws.suggest, strategy, min(max(top, 0), 50)))

    async def post_analysis(request: Request) -> Response:
        data = await body(request)
        ref, params = str(data.get("spec", "")), params_of(data.get("params", {}))
        strategy = str(data.get("strategy", "entropy"))
        secrets = data.get("secrets")
        if strategy not in STRATEGIES or strategy == "tree":
            raise SleuthError(f"unknown strategy '{strategy}'")
        if secrets is not None and (not isinstance(secrets, int) or secrets < 1):
            raise SleuthError("secrets must be a positive number")
        loaded = await run_in_threadpool(library.game, ref, params)
        game = loaded.game

        def work(progress: Any) -> dict[str, Any]:
            chooser = make_strategy(strategy, loaded.candidates)
            return analyse(game, chooser, ref, secrets=secrets, progress=progress).to_json()

        job = jobs.start(f"{game.name} {json.dumps(params)} {strategy}", work, error_json)
        return JSONResponse(job.to_json(), status_code=202)

    async def get_analysis(request: Request) -> Response:
        try:
            return JSONResponse(jobs.get(request.path_params["ident"]).to_json())
        except SleuthError as err:
            raise NotFound(err.message) from None

    async def cancel_analysis(request: Request) -> Response:
        try:
            return JSONResponse(jobs.cancel(request.path_params["ident"]).to_json())
        except SleuthError as err:
            raise NotFound(err.message) from None

    async def failed(request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, NotFound) else 413 if isinstance(exc, TooLarge) \
            else 400
        return JSONResponse({"error": error_json(exc)}, status_code=status)

    routes = [
        Route("/", index),
        Route("/api/specs", get_specs, methods=["GET"]),
        Route("/api/specs", post_spec, methods=["POST"]),
        Route("/api/spec", get_spec),
        Route("/api/sessions", get_sessions, methods=["GET"]),
        Route("/api/sessions", post_session, methods=["POST"]),
        Route("/api/sessions/{ident}", get_session),
        Route("/api/sessions/{ident}/observe", observe, methods=["POST"]),
        Route("/api/sessions/{ident}/undo", undo, methods=["POST"]),
        Route("/api/sessions/{ident}/redo", redo, methods=["POST"]),
        Route("/api/sessions/{ident}/suggest", suggest),
        Route("/api/analyses", post_analysis, methods=["POST"]),
        Route("/api/analyses/{ident}", get_analysis, methods=["GET"]),
        Route("/api/analyses/{ident}", cancel_analysis, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    async def missing(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": error_json(SleuthError(
            f"nothing at {request.url.path}"))}, status_code=404)

    app = Starlette(routes=routes, exception_handlers={SleuthError: failed, 404: missing},
                    middleware=[Middleware(SecurityHeaders)])
    app.state.jobs = jobs
    app.state.library = library
    return app


@contextlib.contextmanager
def serving(app: Starlette, host: str = "127.0.0.1") -> Iterator[str]:
    """The app on a free port of `host`, in a background thread, while the block runs;
    its base URL. For tests and scripts: `sleuth serve` runs uvicorn in the foreground."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SleuthError("the server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.state.jobs.close()


__all__ = ["create_app", "error_json", "serving"]
