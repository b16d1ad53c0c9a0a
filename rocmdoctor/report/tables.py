"""Terminal tables that never lose a cell: full width on a pipe, records in a narrow terminal.

Rich sizes a console that is not a terminal at 80 columns (or at the size of whichever std stream *is* a
terminal), so ``rocmdoctor fleet audit | tee log`` cut the fleet configuration table and folded ``matrix show``
into fragments. Here a pipe or a file gets the table at its natural width (every row one line, greppable),
and a terminal too narrow for the table gets one record per row ("column: value" lines) instead of columns
one word wide. Every table-printing command goes through :func:`print_table`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, Optional, Union

Cell = Union[str, Any]  # a plain string (printed verbatim, never read as markup) or a rich Text
UNBOUNDED = 1_000_000  # "no width limit" for rich: tables never expand, so they keep their natural width


@dataclass(frozen=True)
class Column:
    name: str
    justify: str = "left"


def console(file: Optional[IO[str]] = None, stderr: bool = False) -> Any:
    """A rich Console for reports: the terminal's width on a terminal, unbounded on a pipe or a file."""
    from rich.console import Console

    con = Console(file=file, stderr=stderr, highlight=False)
    if not con.is_terminal:
        con = Console(file=file, stderr=stderr, highlight=False, width=UNBOUNDED)
    return con


def _text(cell: Cell) -> Any:
    from rich.text import Text

    return cell if isinstance(cell, Text) else Text("" if cell is None else str(cell))


def natural_width(con: Any, table: Any) -> int:
    """The width the table needs to show every cell on one line."""
    from rich.measure import Measurement

    return Measurement.get(con, con.options.update_width(UNBOUNDED), table).maximum


def print_table(con: Any, title: str, columns: list[Column], rows: list[list[Cell]],
                compact: bool = False) -> None:
    """A table when it fits (always, on a pipe); else one record per row ("- first column: value", then one
    indented "column: value" line per non-empty cell, wrapped under its value)."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=not compact, pad_edge=not compact)
    for c in columns:
        table.add_column(c.name, justify=c.justify, overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*[_text(c) for c in row])
    con.print(Text(title, style="italic"))  # not the table's own title: rich pads it to the table's width
    if not con.is_terminal or natural_width(con, table) <= con.width:
        con.print(table)
        return
    for row in rows:
        head, *rest = [_text(c) for c in row]
        heading = head.copy() if head.plain else Text("-")
        heading.stylize("bold")
        con.print(Text.assemble("- ", (columns[0].name, "dim"), ": ", heading))
        record = Table.grid(padding=(0, 1))
        record.add_column(style="dim", no_wrap=True)
        record.add_column(overflow="fold")
        for col, cell in zip(columns[1:], rest):
            if cell.plain:
                record.add_row(f"{col.name}:", cell)
        con.print(Padding(record, (0, 0, 0, 4)))
