"""One printed row of a robustness bench: what was tried, what the user got, and whether that is right."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Row:
    name: str
    outcome: str
    ok: bool


def print_rows(rows: list[Row]) -> None:
    width = max((len(r.name) for r in rows), default=0)
    for row in rows:
        print(f"  {row.name:<{width}} : {row.outcome}{'' if row.ok else '  (!)'}")
