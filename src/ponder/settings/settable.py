"""Who may set a configuration field: any caller, or only the operator.

Every :class:`~ponder.settings.configuration.Configuration` field is declared ``Caller[T]`` or
``Operator[T]`` (a test fails for a field that is neither). On the CLI and in Python the
caller *is* the operator and sets everything; a shared server (LangGraph Server, ``ponder
mcp``) lets its callers set only ``Caller`` fields, within the operator's limits (see
:mod:`ponder.settings.callers`). The mark also shows in the JSON schema (``"settable_by"``) that
LangGraph Studio reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import GetJsonSchemaHandler
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

Who = Literal["caller", "operator"]
T = TypeVar("T")


@dataclass(frozen=True)
class SettableBy:
    who: Who

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema["settable_by"] = self.who
        return schema


Caller = Annotated[T, SettableBy("caller")]
"""A per-question setting: a caller of a shared server may choose it."""

Operator = Annotated[T, SettableBy("operator")]
"""A setting of the machine that runs the research: only its operator sets it."""


def settable_by(field: FieldInfo) -> Who | None:
    """Who the field's declaration says may set it (None: it does not say)."""
    marks: list[Any] = [m for m in field.metadata if isinstance(m, SettableBy)]
    return marks[0].who if len(marks) == 1 else None
