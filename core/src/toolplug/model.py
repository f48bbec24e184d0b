"""The typed halves of a tool call, :class:`Action` in and :class:`Observation` out, and
the provider-neutral :class:`ToolCall`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from typing_extensions import Self  # a pydantic dependency; typing.Self needs 3.11

from toolplug._text import printable
from toolplug.content import ContentBlock, TextContent


class Action(BaseModel):
    """Base class of a tool's input: the fields a model fills in.

    Describe every field with ``Field(description=...)``: the description is what the
    model reads in every exported schema. Unknown keys are rejected (the safe entry
    point drops them and says so), which also keeps exports valid in OpenAI strict mode.
    """

    model_config = ConfigDict(extra="forbid")

    _declared_risk: str | None = PrivateAttr(default=None)

    @property
    def declared_risk(self) -> str | None:
        """The ``security_risk`` level the model declared with this call (``LOW``,
        ``MEDIUM`` or ``HIGH`` as exported; as sent, cut short), when the tool was
        exported with ``security_risk=True``; ``None`` when it declared none. It is not a
        field of the action (the tool never sees it): ``tool_call`` hooks read it here,
        to refuse or ask about calls a model itself calls risky."""
        declared = getattr(self, "security_risk", None)
        if isinstance(declared, str):  # an action that has the field itself
            return declared
        return self._declared_risk

    def touched_paths(self) -> tuple[str, ...] | None:
        """Every path this call would read or write, as the model named them, for
        ``tool_call`` hooks that decide by path (a permission policy).

        ``None`` (the default): the action's ``path`` field, if it has one, says it. An
        action that names several paths in another form (a patch naming its files)
        overrides this, so that a guard sees each of them; an empty tuple means the
        call touches no path it could name.
        """
        return None


class ToolAnnotations(BaseModel):
    """MCP behaviour hints. ``None`` means "not said" (MCP defaults then apply)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str | None = Field(default=None, description="A human-readable title.")
    readOnlyHint: bool | None = Field(
        default=None, description="The tool does not change its environment."
    )
    destructiveHint: bool | None = Field(
        default=None, description="The tool may delete or overwrite (if not read-only)."
    )
    idempotentHint: bool | None = Field(
        default=None, description="Repeating a call with the same arguments changes nothing more."
    )
    openWorldHint: bool | None = Field(
        default=None, description="The tool reaches outside a closed world (network, web)."
    )

    @property
    def read_only(self) -> bool:
        """Whether the tool declared itself read-only."""
        return bool(self.readOnlyHint)


class Observation(BaseModel):
    """Base class of a tool's output.

    ``content`` holds MCP-style blocks; ``is_error`` marks a failed call. Subclasses add
    typed fields (an exit code, a path) that hosts read without parsing text; those
    fields, with the model's text under :data:`TEXT_KEY`, are the MCP
    ``structuredContent``, and their model is the ``outputSchema``.
    Override :attr:`llm_content` to render the fields for the model.
    """

    model_config = ConfigDict(extra="forbid")

    #: Fields of the base class, left out of ``structuredContent`` and ``outputSchema``.
    base_fields: ClassVar[frozenset[str]] = frozenset({"content", "is_error"})

    content: list[ContentBlock] = Field(
        default_factory=list, description="Content blocks shown to the model."
    )
    is_error: bool = Field(default=False, description="True when the call failed.")

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> Self:
        """Build an observation of this class whose content is one text block."""
        return cls(content=[TextContent(text=text)], **fields)

    @classmethod
    def error(cls, message: str) -> Observation:
        """An error observation (always of the base class, so no typed field is needed)."""
        return Observation(content=[TextContent(text=message)], is_error=True)

    @property
    def llm_content(self) -> Sequence[ContentBlock]:
        """What the model sees. By default the content, or the typed fields as JSON."""
        if self.content:
            return self.content
        data = self._typed_fields()
        if data:
            return [TextContent(text=json.dumps(data, ensure_ascii=False))]
        return []

    @property
    def text(self) -> str:
        """The text blocks of :attr:`llm_content`, joined by newlines."""
        return "\n".join(b.text for b in self.llm_content if isinstance(b, TextContent))

    @classmethod
    def has_structured_fields(cls) -> bool:
        """Whether this class adds typed fields to the base observation."""
        return any(name not in cls.base_fields for name in cls.model_fields)

    def _typed_fields(self) -> dict[str, Any] | None:
        """The typed fields as JSON data, or ``None`` when the class adds none."""
        if not self.has_structured_fields():
            return None
        data: dict[str, Any] = _printable_data(
            self.model_dump(mode="json", exclude=set(self.base_fields))
        )
        return data

    def structured_content(self) -> dict[str, Any] | None:
        """The MCP ``structuredContent``: :attr:`text` under :data:`TEXT_KEY`, then the
        typed fields; ``None`` for an error or a class without typed fields.

        Hosts such as pydantic-ai, openai-agents (``use_structured_content``) and
        smolagents (``structured_output``) give the model this instead of the content
        blocks, so it carries the text the model would have read. A subclass that
        overrides this method keeps that promise itself (``toolplug.testing`` checks it).
        """
        if self.is_error:
            return None
        data = self._typed_fields()
        if data is None:
            return None
        rendering = _RENDERING.get()
        if id(self) in rendering:
            # An llm_content override that renders structured_content(): it gets the
            # fields alone, and the text it makes is then added to them.
            return data
        token = _RENDERING.set(rendering | {id(self)})
        try:
            text = self.text
        finally:
            _RENDERING.reset(token)
        return {TEXT_KEY: printable(text), **data}

    @classmethod
    def output_schema(cls) -> dict[str, Any] | None:
        """JSON schema of :meth:`structured_content` (MCP ``outputSchema``)."""
        if not cls.has_structured_fields():
            return None
        from toolplug.schema import clean_schema

        schema = cls.model_json_schema(mode="serialization")
        props = schema.get("properties", {})
        for name in cls.base_fields:
            props.pop(name, None)
        required = [r for r in schema.get("required", []) if r in props]
        if TEXT_KEY not in props:
            schema["properties"] = {TEXT_KEY: dict(_TEXT_SCHEMA), **props}
            required.insert(0, TEXT_KEY)
        if required:
            schema["required"] = required
        else:
            schema.pop("required", None)
        return clean_schema(schema)


#: The ``structuredContent`` key that holds the text the model reads (see
#: :meth:`Observation.structured_content`).
TEXT_KEY = "text"
#: The observations (by id) whose text :meth:`Observation.structured_content` is
#: rendering in this thread or task.
_RENDERING: ContextVar[frozenset[int]] = ContextVar("toolplug_rendering", default=frozenset())
_TEXT_SCHEMA = {
    "type": "string",
    "description": "What the model reads: the text of the result's content blocks.",
}


@dataclass(slots=True)
class ToolCall:
    """One tool call, whatever its provider: an id, the tool's name, its arguments.

    ``arguments`` is a dict or a JSON string, as the model sent it; ``name`` is the name
    the model used (a provider-safe name is mapped back when the call is dispatched).
    """

    id: str
    name: str
    arguments: Any = None


def _printable_data(value: Any) -> Any:
    """JSON data whose every string (keys too) is valid UTF-8: a typed field may hold a
    name that is not UTF-8, or a lone surrogate a model sent, and JSON and MCP refuse
    those."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(k): _printable_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_data(item) for item in value]
    return value
