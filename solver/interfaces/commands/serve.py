"""`sleuth serve`: the web worksheet and design view on a local server."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from sleuth.compiler.api import SleuthError, load_game, speak_as
from sleuth.solver.interfaces.web.quotas import DISK_MB, SESSIONS, UPLOADS

# seconds an idle connection stays open: longer than a page waits between requests under
# load, so a client never sends on a connection the server is closing (uvicorn's short
# default drops a request now and then under 200 clients)
KEEP_ALIVE = 75


@click.command()
@click.argument("specs", nargs=-1, metavar="[SPEC]...")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on: this machine only by default. Another "
                   "(0.0.0.0: the players' phones on the table's network) needs the access "
                   "token the printed URL carries.")
@click.option("--token", default=None, metavar="TEXT",
              help="The access token beyond loopback (default: a new random one each "
                   "start). Given on loopback, it is needed there too.")
@click.option("--memory-mb", type=click.IntRange(64), default=None, metavar="MiB",
              help="The games the server keeps loaded, in MiB (least recently used "
                   "dropped first, loaded again when asked for).  [default: 2048]")
@click.option("--max-sessions", type=click.IntRange(1), default=SESSIONS, show_default=True,
              help="Session files the folder may hold; a new one beyond is refused.")
@click.option("--max-uploads", type=click.IntRange(0), default=UPLOADS, show_default=True,
              help="Uploaded specs the server keeps; an upload beyond is refused.")
@click.option("--max-disk-mb", type=click.IntRange(1), default=DISK_MB, show_default=True,
              metavar="MiB", help="What the sessions folder may hold in all; a write "
                                  "beyond is refused.")
@click.option("--sessions", "sessions", type=click.Path(file_okay=False),
              default="sleuth-sessions", show_default=True,
              help="The folder of session files (shared with `sleuth play --session`) and "
                   "uploaded specs.")
def serve(specs: tuple[str, ...], port: int, host: str, token: str | None,
          memory_mb: int | None, max_sessions: int, max_uploads: int, max_disk_mb: int,
          sessions: str) -> None:
    """A web worksheet for playing at the table and a design view of a game's entropy,
    on http://HOST:PORT/. SPECs (besides the bundled ones) are offered on the page."""
    import uvicorn

    from sleuth.solver.interfaces.web.app import create_app
    from sleuth.solver.interfaces.web.gate import is_loopback, is_wildcard, new_token
    from sleuth.solver.interfaces.web.library import MEMORY_MB

    for spec in specs:
        load_game(spec)  # a bad spec is reported now, as `sleuth check` would
    if token is None and not is_loopback(host):
        token = new_token()
    speak_as("api")  # the page and the JSON API name options as fields, not flags
    app = create_app(list(specs), Path(sessions), host=host, token=token,
                     memory_mb=memory_mb or MEMORY_MB,
                     quotas={"sessions": max_sessions, "uploads": max_uploads,
                             "disk_mb": max_disk_mb})
    where = lan_address() if is_wildcard(host) else host
    url = f"http://{f'[{where}]' if ':' in where else where}:{port}/"
    if token is not None:
        url += f"?token={token}"
    click.echo(f"Sleuth on {url}\n(sessions in {Path(sessions).resolve()}); Ctrl-C stops it")
    if not is_loopback(host):
        click.echo("Anyone on the network who has this URL can use the page: share it with "
                   "the players only.", err=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning",
                    timeout_keep_alive=KEEP_ALIVE)
    except OSError as err:
        raise SleuthError(f"cannot serve on {host}:{port}: {err.strerror or err}",
                          hint="another program may use the port: --port N") from None
    finally:
        app.state.jobs.close()


def lan_address() -> str:
    """This machine's address on its network (the one its default route leaves by), for
    the URL a player's phone opens; its name when it has no route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent by a UDP connect
            return probe.getsockname()[0]
        except OSError:
            return socket.gethostname()
