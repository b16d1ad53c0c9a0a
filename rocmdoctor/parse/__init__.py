"""Parsers: one module per source format, each a pure ``str -> typed result`` function that never raises.

Pasted terminal text (prompts, ANSI colours, CRLF, grep excerpts, cut-off output, bytes that are not
UTF-8) goes through :mod:`rocmdoctor.parse.text`; :mod:`rocmdoctor.bundle` decides which parser reads
which file and folds the results into one :class:`rocmdoctor.model.Host`. Standard library only,
because ``rocmdoctor check --from`` must stay fast.
"""
