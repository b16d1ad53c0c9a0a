"""The console-script entry point (``rocmdoctor``, ``python -m rocmdoctor``), kept free of heavy imports.

``install torch`` starts its target interpreter here, before typer/click and the commands are imported, so
that the interpreter loads pip while rocmdoctor itself starts (see :func:`rocmdoctor.install.session.start_early`).
Everything else is :func:`rocmdoctor.cli.app.main`.

Fail closed at the very top: the imports happen inside :func:`main`, so that a broken module of our own
package (an ``ImportError`` from a bad install or a bug) ends as exit 3 with one line and a bug-report hint,
like any other unexpected exception, never as a traceback or as a run that reports nothing wrong.
"""

from __future__ import annotations

import sys

from rocmdoctor.errors import report_internal_error


def main() -> int:
    argv = sys.argv[1:]
    try:
        from rocmdoctor.install import session as pipsession

        pipsession.start_early(argv)
        try:
            from rocmdoctor.cli.app import main as cli_main

            return cli_main()
        finally:
            pipsession.close_early()
    except KeyboardInterrupt:
        print("rocmdoctor: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # app.main maps every exception of a command; this is what escaped it
        return report_internal_error(exc, argv)
