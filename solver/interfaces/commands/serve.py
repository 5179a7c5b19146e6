"""`sleuth serve`: the web worksheet and design view on a local server."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import click

from sleuth.compiler.api import SleuthError, load_game, speak_as


@click.command()
@click.argument("specs", nargs=-1, metavar="[SPEC]...")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on: this machine only by default. Another "
                   "address (0.0.0.0) serves anyone who can reach the machine.")
@click.option("--sessions", "sessions", type=click.Path(file_okay=False),
              default="sleuth-sessions", show_default=True,
              help="The folder of session files (shared with `sleuth play --session`) and "
                   "uploaded specs.")
def serve(specs: tuple[str, ...], port: int, host: str, sessions: str) -> None:
    """A web worksheet for playing at the table and a design view of a game's entropy,
    on http://HOST:PORT/. SPECs (besides the bundled ones) are offered on the page."""
    import uvicorn

    from sleuth.solver.interfaces.web.app import create_app

    for spec in specs:
        load_game(spec)  # a bad spec is reported now, as `sleuth check` would
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = host == "localhost"
    if not local:
        click.echo(f"warning: serving on {host}: anyone who can reach this machine can use "
                   "the page and its sessions", err=True)
    speak_as("api")  # the page and the JSON API name options as fields, not flags
    app = create_app(list(specs), Path(sessions))
    click.echo(f"Sleuth on http://{host}:{port}/ (sessions in {Path(sessions).resolve()}); "
               "Ctrl-C stops it")
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    except OSError as err:
        raise SleuthError(f"cannot serve on {host}:{port}: {err.strerror or err}",
                          hint="another program may use the port: --port N") from None
    finally:
        app.state.jobs.close()
