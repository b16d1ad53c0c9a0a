"""Plain words for counts: '1 host', '2 hosts' — never 'host(s)' or '1 hosts'. Stdlib only, any layer may use it."""

from __future__ import annotations

from typing import Optional


def plural(n: int, noun: str, nouns: Optional[str] = None) -> str:
    """``n`` and the noun in the form that fits it; ``nouns`` for irregular plurals."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"
