"""A setting's command-line flag, carried in the field's metadata beside its description.

A field the ``ponder`` command offers says so where it is declared::

    max_loops: Annotated[Caller[int], Flag("--loops", "maximum search rounds", metavar="N")]

The CLI's options (``interfaces/cli/flags.py``) and docs/configuration.md are generated
from these marks by ``scripts/settings_docs.py``; ``make lint`` fails when either is stale.
Only the standard library is imported here, so ``ponder --help`` stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# store: the flag's value; append: repeatable, each value added to the list; true, false:
# a switch that sets the field to that value.
Action = Literal["store", "append", "true", "false"]
# How the value is read: as text, a whole number, or a list of search backends ("a,b").
Parse = Literal["text", "int", "search"]


@dataclass(frozen=True)
class Flag:
    name: str  # "--loops"
    help: str  # short, lower-case: what `ponder --help` says
    metavar: str | None = None
    action: Action = "store"
    parse: Parse = "text"
    choices: tuple[str, ...] = ()  # filled in from a Literal type by the generator


def flag_of(field: Any) -> Flag | None:
    """The flag a field's declaration names (``field``: a pydantic FieldInfo), or None."""
    marks = [mark for mark in getattr(field, "metadata", ()) if isinstance(mark, Flag)]
    return marks[0] if marks else None
