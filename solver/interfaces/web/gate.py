"""Who may ask the server anything: the checks every request passes before a route.

A server on this machine's loopback is reachable by every web page the machine's
browser opens, so three checks stop a foreign page from using it:

- **Host** must name the server: a loopback name (127.0.0.1, localhost, ::1), the
  address it was bound to, or, bound to every interface (0.0.0.0), any IP literal or
  this machine's own name. A DNS-rebinding page reaches the server under its own domain
  name, so its requests are refused (421).
- **Origin**, when a state-changing request (anything but GET/HEAD/OPTIONS) carries one,
  must be the server's own (`http://` + its Host); a browser's `Sec-Fetch-Site:
  cross-site` is refused too (403).
- **Content-Type** of a POST must be `application/json` (415): a form or a `text/plain`
  fetch, which a foreign page may send without asking first, never changes anything.
  (DELETE and PUT need the browser's preflight, which this server never grants.)

Bound to anything but loopback (`sleuth serve --host 0.0.0.0`, the players' phones on
the table's network), the server also needs its **access token**: the URL it prints
carries `?token=...`, the first visit sets it as a cookie (HttpOnly, SameSite=Strict)
and is sent on without it; every request without the token, as cookie, query or
`Authorization: Bearer`, is refused (403). On loopback there is no token.

Every refusal is a JSON error, like every other error of the API.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import socket
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from sleuth.compiler.api import SleuthError

COOKIE = "sleuth_token"
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or name to bind) is this machine only."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def is_wildcard(host: str) -> bool:
    """Whether binding `host` listens on every interface (0.0.0.0, ::)."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return host == ""


def new_token() -> str:
    """A fresh access token (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def host_name(header: str) -> str:
    """The name in a Host header, without its port or an IPv6 literal's brackets."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header[1:]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Gate:
    """ASGI middleware: the Host, Origin, Content-Type and token checks (module doc)."""

    def __init__(self, app: Any, bound: str = "127.0.0.1", token: str | None = None):
        self.app = app
        self.bound = bound.lower()
        self.wildcard = is_wildcard(bound)
        self.token = token
        machine = socket.gethostname().lower()
        self.names = set(LOOPBACK_NAMES) | {self.bound} | (
            {machine, f"{machine}.local"} if self.wildcard else set())

    def host_allowed(self, name: str) -> bool:
        if name in self.names:
            return True
        if not self.wildcard:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        refusal = self.refusal(scope, headers, query)
        if refusal is not None:
            await refusal(send)
            return
        if self.token is not None and scope["method"] == "GET" and "token" in query \
                and not scope["path"].startswith("/api/"):
            await self.welcome(scope, query, send)  # the printed URL: set the cookie
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Any, headers: dict[str, str], query: dict[str, str]
                ) -> Callable[[Any], Awaitable[None]] | None:
        """The answer refusing this request, or None to let it through."""
        name = host_name(headers.get("host", ""))
        if not self.host_allowed(name):
            return answer(421, f"this server does not answer to the host '{name[:100]}'",
                          "open it by the address `sleuth serve` printed")
        if self.token is not None and not self.has_token(headers, query):
            return answer(403, "this server needs its access token",
                          "open the URL `sleuth serve` printed (it carries ?token=...)")
        if scope["method"] in SAFE:
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"http://{headers.get('host', '')}".lower():
            return answer(403, "a request from another site cannot change anything here",
                          "use the page this server serves")
        if headers.get("sec-fetch-site") == "cross-site":
            return answer(403, "a request from another site cannot change anything here",
                          "use the page this server serves")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if scope["method"] == "POST" and kind != "application/json":
            return answer(415, "a request that changes something must be JSON",
                          "send Content-Type: application/json")
        return None

    def has_token(self, headers: dict[str, str], query: dict[str, str]) -> bool:
        assert self.token is not None
        given = []
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a malformed cookie header carries no token
            cookie = SimpleCookie()
        if COOKIE in cookie:
            given.append(cookie[COOKIE].value)
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            given.append(auth[7:].strip())
        if "token" in query:
            given.append(query["token"])
        return any(secrets.compare_digest(g.encode(), self.token.encode()) for g in given)

    async def welcome(self, scope: Any, query: dict[str, str], send: Any) -> None:
        """The printed URL's first visit: the token becomes a cookie, and the browser is
        sent to the same page without it (so it is not left in the address bar)."""
        rest = urlencode({k: v for k, v in query.items() if k != "token"})
        where = scope["path"] + (f"?{rest}" if rest else "")
        cookie = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", where.encode("latin-1")),
                                (b"set-cookie", cookie.encode("latin-1")),
                                (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})


def answer(status: int, message: str, hint: str) -> Callable[[Any], Awaitable[None]]:
    """A JSON error answer, as the API's own errors are."""
    text = str(SleuthError(message, hint=hint))
    payload = json.dumps({"error": {"message": message, "hint": hint, "loc": None,
                                    "text": text}}).encode()

    async def respond(send: Any) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})

    return respond


__all__ = ["COOKIE", "Gate", "host_name", "is_loopback", "is_wildcard", "new_token"]
