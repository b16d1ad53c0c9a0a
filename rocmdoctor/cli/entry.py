"""The console-script entry point (``rocmdoctor``, ``python -m rocmdoctor``), kept free of heavy imports.

``install torch`` starts its target interpreter here, before typer/click and the commands are imported, so
that the interpreter loads pip while rocmdoctor itself starts (see :func:`rocmdoctor.install.session.start_early`).
Everything else is :func:`rocmdoctor.cli.app.main`.
"""

from __future__ import annotations

import sys


def main() -> int:
    from rocmdoctor.install import session as pipsession

    pipsession.start_early(sys.argv[1:])
    try:
        from rocmdoctor.cli.app import main as cli_main

        return cli_main()
    finally:
        pipsession.close_early()
