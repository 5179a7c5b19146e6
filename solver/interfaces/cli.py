"""The `sleuth` command line (design §6). Errors become one message and exit status 1.

Commands live in `commands/` and are imported only when run: `sleuth --version`
loads click alone, `sleuth check` the compiler, and only `analyse` and `bench`
load plotting (matplotlib) or Dask. The table below is the whole command set.
"""

from __future__ import annotations

import gc
import importlib
import sys

import click

COMMANDS: dict[str, str] = {  # name -> module:function under sleuth.solver.interfaces.commands
    "check": "inspect:check",
    "info": "inspect:info",
    "compile": "inspect:compile_spec",
    "solve": "playing:solve",
    "belief": "playing:belief",
    "play": "playing:play",
    "evaluate": "evaluate:evaluate",
    "verify-tree": "evaluate:verify_tree_command",
    "analyse": "analyse:analyse",
    "atlas": "atlas:atlas",
    "bench": "bench:bench",
    "serve": "serve:serve",
}


# said once on stderr as a command's first compile starts: numba compiles the search
# kernels on their first call where its cache has no copy (compiler/compiling.py)
COMPILING = ("sleuth: compiling search kernels, first run only (later runs read them "
             "from numba's cache) ...")


def say_compiling() -> None:
    """COMPILING on stderr where progress is shown (a terminal, as for the progress bars):
    a script reading the command's streams gets its output alone."""
    from sleuth.solver.interfaces.options import terminal_stderr

    console = terminal_stderr()
    if console is not None:
        console.print(COMPILING, markup=False, highlight=False, soft_wrap=True)


class LazyGroup(click.Group):
    """A group whose commands are imported the first time they are asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(f"sleuth.solver.interfaces.commands.{module}"),
                       attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sleuth")
def cli() -> None:
    """Sleuth: deduction games as specs, compiled and solved."""
    from sleuth.compiler.api import compiling, speak_as

    compiling.on_first_compile(say_compiling)

    if (click.get_current_context().obj or {}).get("own_process"):
        # The command is loaded (click resolves it before this runs): the objects the
        # imports made live as long as the process, so the collector is told to leave
        # them out of every walk, whose cost would otherwise be a share of a short
        # command's time.
        gc.freeze()
        # ... and the arrays it makes from now on are not advised onto huge pages, whose
        # faults stalled the builds (evaluation/heap.py)
        from sleuth.solver.evaluation.heap import small_pages

        small_pages()
    speak_as("cli")  # errors name options as flags while a command runs, then as keywords
    click.get_current_context().call_on_close(lambda: speak_as("api"))


def main(argv: list[str] | None = None, *, own_process: bool = False) -> None:
    """Run the CLI; user errors print one message and exit with status 1. `own_process`:
    the process runs this one command and exits (`run`), so what the imports made is
    frozen out of the garbage collector's walks (`gc.freeze`); in a longer process (a
    test, a notebook) nothing is frozen, as frozen garbage would never be freed."""
    try:
        cli.main(args=argv, prog_name="sleuth", standalone_mode=False,
                 obj={"own_process": own_process})
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as err:
        err.show()
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as err:
        # A user error can only come from a command, which has loaded the compiler already.
        from sleuth.compiler.api import SleuthError

        if not isinstance(err, SleuthError):
            raise
        click.echo(f"error: {err}", err=True)
        sys.exit(1)


def run() -> None:
    """The `sleuth` console script and `python -m sleuth`: one command, its own process."""
    main(own_process=True)


if __name__ == "__main__":
    run()
