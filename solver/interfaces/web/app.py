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

The routes are grouped by resource in web/resources.py (Specs, Sessions, Analyses).
Errors are JSON `{"error": {message, hint, loc}}` with status 400 (bad input; nothing
changed), 403 (a foreign page, or no access token: web/gate.py), 404 (no such session or
job), 413 (too large), 415 (not JSON, or a zip compressed otherwise than deflate), 421
(a Host that is not the server's), 422 (an upload whose spec does not load), 429 (a
quota is full) or 500 (the server's own fault; nothing changed), never plain text.
Requests run on worker threads, one at a time per worksheet, and a suggestion is worked
out in a forked child (web/forked.py), so no computation delays an answer. The page itself
(static/) ships in the package: no script or style comes from elsewhere, and its
Content-Security-Policy says so.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sleuth.compiler.api import SleuthError
from sleuth.solver.interfaces.web.gate import Gate
from sleuth.solver.interfaces.web.jobs import Jobs
from sleuth.solver.interfaces.web.library import MEMORY_MB, Library
from sleuth.solver.interfaces.web.quotas import Quotas
from sleuth.solver.interfaces.web.resources import (
    Analyses,
    Server,
    Sessions,
    Specs,
    error_json,
)

STATIC = Path(__file__).parent / "static"
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                               "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


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


def create_app(specs: list[str], sessions: Path, workers: int = 2, host: str = "127.0.0.1",
               token: str | None = None, memory_mb: int = MEMORY_MB,
               quotas: dict[str, int] | None = None) -> Starlette:
    """The app serving `specs` (and the bundled ones), keeping sessions in `sessions`: the
    page, and one group of routes per resource (web/resources.py), behind the gate
    (web/gate.py) for a server bound to `host`, needing `token` when one is given; the
    games it loads are kept within `memory_mb` MiB (web/cache.py), and what its pages
    store within `quotas` (web/quotas.py: sessions, uploads, disk_mb)."""
    server = Server(Library(specs, sessions, memory_mb), sessions, Jobs(workers),
                    Quotas(sessions, **(quotas or {})))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def failed(request: Request, exc: Exception) -> Response:
        # an error class of the web layer says its status; any other SleuthError is bad
        # input (400)
        status = getattr(exc, "status", 400)
        # a body refused as too large is not read on: the connection closes after the answer
        return JSONResponse({"error": error_json(exc)}, status_code=status,
                            headers={"connection": "close"} if status == 413 else None)

    async def broken(request: Request, exc: Exception) -> Response:
        # a fault of the server's own, still answered as JSON, naming no path of it
        return JSONResponse({"error": error_json(SleuthError(
            f"the server failed on this request ({type(exc).__name__})",
            hint="nothing was changed; report it if it happens again"))}, status_code=500)

    async def missing(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": error_json(SleuthError(
            f"nothing at {request.url.path}"))}, status_code=404)

    routes = [Route("/", index),
              *Specs(server).routes(), *Sessions(server).routes(), *Analyses(server).routes(),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, exception_handlers={SleuthError: failed, 404: missing,
                                                       Exception: broken},
                    middleware=[Middleware(SecurityHeaders),
                                Middleware(Gate, bound=host, token=token)])
    app.state.jobs = server.jobs
    app.state.library = server.library
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
