"""Native forms: a tool declared in a provider's own trained shape instead of as a function.

Providers train their models on a few tools with fixed shapes, declared by type rather
than by schema: Anthropic's ``{"type": "text_editor_20250728", "name":
"str_replace_based_edit_tool"}`` or ``{"type": "bash_20250124", "name": "bash"}``, the
OpenAI Responses API's typed ``shell`` and ``apply_patch`` tools. A tool that behaves as
the model expects one of them gives a :class:`NativeForm` per format
(``ToolDefinition(native_forms={"anthropic": form})``); a host asks for those forms with
``Toolset.export(format, native=True)`` (or ``native={"bash"}`` for some tools).

A form has four jobs, one per method:

- :meth:`~NativeForm.declare`: the declaration exported instead of the function one;
- :meth:`~NativeForm.read_call`: for providers whose native calls are typed items
  (Responses' ``shell_call``), claim one as a :class:`~toolplug.ToolCall` named
  :attr:`~NativeForm.call_name`. Where the calls are ordinary tool calls under a fixed
  name (Anthropic's ``tool_use`` blocks), the format reads them and nothing is needed;
- :meth:`~NativeForm.arguments`: the model's native input as the tool's own arguments.
  Bad input raises (an :class:`~toolplug.ArgumentError` with a message the model can act
  on): dispatch answers that call with an error result, like any bad arguments;
- :meth:`~NativeForm.render_result`: an observation as the provider's native result.

Which calls are native: a call whose name is a form's :attr:`~NativeForm.call_name`, in
the format of that form, for a tool exported natively. A :class:`~toolplug.Toolset`
remembers which tools its last ``export(format, native=...)`` declared natively, and
dispatch reads calls in that format accordingly; ``dispatch(..., native=...)`` says it
outright (for a plain mapping of tools, or a host that exported elsewhere). A tool
exported natively in a format is not also declared as a function there, so a call name
is never both.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolplug.errors import ToolError
from toolplug.formats.base import validate_sdk_type
from toolplug.model import Observation, ToolCall

if TYPE_CHECKING:
    from toolplug.definition import ToolDefinition
    from toolplug.formats.base import ToolFormat

    AnyTool = ToolDefinition[Any, Any]

__all__ = ["Native", "NativeForm", "NativeTools", "native_tools"]

#: What a host passes as ``native=``: ``False`` (function tools only), ``True`` (every
#: tool with a form for the format), or the names of the tools to export natively.
Native = bool | Collection[str]


class NativeForm:
    """One tool's native form in one provider format.

    Give the ``format`` name and the ``declaration`` exported (copied on every export);
    the model calls the tool by ``call_name``, by default the declaration's ``"name"``.
    ``sdk_type`` is ``(module, type name, package)`` of the provider SDK's type the
    declaration must validate against (``("anthropic.types",
    "ToolBash20250124Param", "anthropic")``), for :meth:`check_tool`.

    The defaults pass the native input through unchanged and render results as the
    format renders any tool's; subclass and override :meth:`arguments`,
    :meth:`render_result` (and :meth:`read_call` for typed call items) where the native
    shape differs from the tool's own. A form is stateless: one instance may serve
    every tool it is attached to.
    """

    def __init__(
        self,
        format: str,
        declaration: Mapping[str, Any],
        *,
        call_name: str | None = None,
        sdk_type: tuple[str, str, str] | None = None,
    ) -> None:
        name = call_name if call_name is not None else declaration.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(
                "a native form needs the name its calls carry: a 'name' in the "
                "declaration, or call_name="
            )
        #: The format this form is for (``"anthropic"``, ``"responses"``, a plugin's).
        self.format = format
        #: The declaration exported in place of the function declaration.
        self.declaration: dict[str, Any] = dict(declaration)
        #: The name the model's calls carry (the name :meth:`read_call` gives them).
        self.call_name: str = name
        #: The SDK type the declaration validates against, if any.
        self.sdk_type = sdk_type

    def __repr__(self) -> str:
        kind = self.declaration.get("type", "")
        return f"<{type(self).__name__} {self.format}:{kind or self.call_name}>"

    # -- declaring ----------------------------------------------------------------------

    def declare(self, tool: AnyTool, **options: Any) -> dict[str, Any]:
        """The declaration of ``tool`` in this form (a fresh copy). ``options`` are the
        export's (``strict``, ``security_risk``); a fixed shape ignores them."""
        return copy.deepcopy(self.declaration)

    # -- calls --------------------------------------------------------------------------

    def read_call(self, item: dict[str, Any], index: int) -> ToolCall | None:
        """A provider item (plain JSON) that is this form's call, as a ToolCall named
        :attr:`call_name` whose arguments :meth:`arguments` reads; ``None`` for any
        other item (the default: the format reads the calls itself). May raise
        ``KeyError`` for a call missing a field, as a format's ``read_call`` does."""
        return None

    def arguments(self, data: dict[str, Any]) -> dict[str, Any]:
        """The tool's own arguments for the native input ``data`` (a decoded JSON
        object). Raise :class:`~toolplug.ArgumentError` (or ``ValueError``) saying what
        is wrong for input the tool cannot take. The default passes ``data`` through."""
        return data

    # -- results ------------------------------------------------------------------------

    def render_result(self, call: ToolCall, observation: Observation, fmt: ToolFormat) -> Any:
        """The observation as the provider's result for the native ``call`` (as the
        model sent it). The default is the format's ordinary result. It may block for
        a while (act on its tool, say): ``adispatch`` runs it in a worker thread."""
        return fmt.render_result(call, observation)

    # -- checks against the provider's own definitions (for tests) ----------------------

    def check_tool(self, exported: dict[str, Any]) -> None:
        """Raise where the declaration breaks the provider SDK's type (:attr:`sdk_type`)."""
        if self.sdk_type is not None:
            module, name, package = self.sdk_type
            validate_sdk_type(exported, module, name, package, f"{self.format} native")

    def check_result(self, result: Any, observation: Observation, fmt: ToolFormat) -> None:
        """Raise where a rendered native result breaks the provider's types; the
        default is the format's own check."""
        fmt.check_result(result, observation)


#: Per format, the calls read natively: call name -> (the tool, its form).
NativeTools = dict[str, dict[str, tuple["AnyTool", NativeForm]]]


def native_tools(
    tools: Iterable[AnyTool], native: Native, formats: Iterable[str] | None = None
) -> NativeTools:
    """The tools of ``tools`` chosen by ``native`` that have a form, per format.

    ``native`` is ``True`` (every tool with a form), ``False`` (none) or tool names.
    ``formats`` limits the formats looked at. Two tools whose forms take the same call
    name in one format are a :class:`~toolplug.ToolError`: the model could not tell
    them apart.
    """
    if native is False:
        return {}
    if isinstance(native, str):  # a single name, not its letters
        native = {native}
    wanted = None if native is True else set(native)
    chosen: NativeTools = {}
    for tool in tools:
        if wanted is not None and tool.name not in wanted:
            continue
        for format, form in tool.native_forms.items():
            if formats is not None and format not in formats:
                continue
            calls = chosen.setdefault(format, {})
            if form.call_name in calls and calls[form.call_name][0] is not tool:
                other = calls[form.call_name][0].name
                raise ToolError(
                    f"the tools '{other}' and '{tool.name}' both have a {format} native "
                    f"form called '{form.call_name}'; export one of them natively"
                )
            calls[form.call_name] = (tool, form)
    return chosen
