"""Fleet audits over SSH: host lists, the OpenSSH transport, aggregation and the fleet reports.

Nothing here is imported by ``rocmdoctor --help``; :mod:`rocmdoctor.cli.commands.fleet` imports these
modules lazily inside the command.
"""
