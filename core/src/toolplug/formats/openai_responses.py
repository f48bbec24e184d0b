"""The OpenAI Responses API: flat ``function`` tools, ``function_call`` items in,
``function_call_output`` items out (text and images).

Tool search: deferred functions carry ``"defer_loading": true`` (with namespaces, each
group's deferred functions go into one ``namespace`` tool, where the flag stays on the
functions) and ``{"type": "tool_search"}`` is added; OpenAI runs the search (hosted
search; a client-run search is not supported here). The response then holds a
``tool_search_call`` item and a ``tool_search_output`` item listing the tools loaded:
neither is a call to run, and the output marks its tools revealed. A call of a function
in a namespace names the namespace beside the function; the function keeps its full
exported name there, so it maps back like any other call.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from toolplug._text import cut
from toolplug.content import ImageContent, block_as_text
from toolplug.errors import DispatchError
from toolplug.formats.base import SKIP, NotACall, ToolFormat, result_text, validate_sdk_type
from toolplug.formats.openai_chat import openai_parameters
from toolplug.model import Observation, ToolCall
from toolplug.names import provider_name
from toolplug.schema import check_openai_strict

#: The call items of the API's typed tools, and the tool each calls: a native form
#: (:mod:`toolplug.formats.forms`) reads them.
_TYPED_CALLS = {
    "shell_call": "shell",
    "apply_patch_call": "apply_patch",
    "custom_tool_call": "custom",
    "local_shell_call": "local_shell",
}


class OpenAIResponsesFormat(ToolFormat):
    """The OpenAI Responses API. ``strict`` is always sent: the service makes a schema
    strict when it is left out."""

    name = "responses"
    title = "OpenAI Responses"
    options = ("strict",)

    def export_tool(
        self,
        tool: Any,
        *,
        name: str | None = None,
        security_risk: bool = False,
        strict: bool = False,
        **options: Any,
    ) -> dict[str, Any]:
        return {
            "type": "function",
            "name": name or tool.name,
            "description": tool.description,
            "parameters": openai_parameters(tool, strict=strict, security_risk=security_risk),
            "strict": strict,
        }

    searches_tools = True

    def export_deferred(
        self,
        tools: Sequence[tuple[str, Any]],
        deferred: Collection[str],
        *,
        search: str = "bm25",
        groups: Mapping[str, str] | None = None,
        **options: Any,
    ) -> list[dict[str, Any]]:
        # ``search``: OpenAI's hosted search picks its own method; both kinds are the same
        # tool here.
        groups = groups or {}
        exported: list[dict[str, Any]] = []
        spaces: dict[str, dict[str, Any]] = {}  # group -> its namespace, where it first shows
        for name, tool in tools:
            declared = self.export_tool(tool, name=name, **options)
            if name not in deferred:
                exported.append(declared)
                continue
            declared["defer_loading"] = True
            group = groups.get(name)
            if group is None:
                exported.append(declared)
                continue
            if group not in spaces:
                spaces[group] = {"type": "namespace", "name": provider_name(group), "tools": []}
                exported.append(spaces[group])
            spaces[group]["tools"].append(declared)
        for group, space in spaces.items():
            # The model reads a namespace's description before any search, beside its
            # name: say its tools' names, without the group's prefix each repeats (MCP's
            # server__tool), and nothing more.
            names = ", ".join(_unprefixed(t["name"], group) for t in space["tools"])
            space["description"] = cut(f"Tools: {names}", 1000)
        exported.append({"type": "tool_search"})
        return exported

    def revealed(self, item: dict[str, Any]) -> list[str]:
        if item.get("type") != "tool_search_output":
            return []
        names: list[str] = []
        for tool in item.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            if tool.get("type") == "namespace":
                names.extend(t["name"] for t in tool.get("tools") or [] if isinstance(t, dict))
            elif "name" in tool:
                names.append(tool["name"])
        return names

    def unwrap(self, data: Any) -> list[Any] | None:
        if isinstance(data, dict) and isinstance(data.get("output"), list):
            return list(data["output"])  # a whole Response
        return None

    def read_call(self, item: Any, index: int) -> ToolCall | NotACall | None:
        kind = item.get("type")
        if kind == "function_call":
            return ToolCall(item["call_id"], item["name"], item.get("arguments"))
        if kind in ("message", "reasoning", "output_text"):
            return SKIP
        if kind in ("tool_search_call", "tool_search_output"):  # OpenAI ran them
            return SKIP
        if kind in _TYPED_CALLS:
            # A native form claims these first; one that comes here would go unanswered
            # (and the next request be refused for the missing output): say why instead.
            raise DispatchError(
                f"item {index} is a {kind} for the Responses {_TYPED_CALLS[kind]} tool, but "
                "no tool here was exported in that native form: export the toolset with "
                "native=True, or tell dispatch so with native="
            )
        return None

    def render_result(self, call: ToolCall, observation: Observation) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in observation.llm_content:
            if isinstance(block, ImageContent):
                url = f"data:{block.mimeType};base64,{block.data}"
                parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
            else:
                parts.append({"type": "input_text", "text": block_as_text(block)})
        output: str | list[dict[str, Any]] = parts
        if all(p["type"] == "input_text" for p in parts):
            output = result_text(observation)
        return {"type": "function_call_output", "call_id": call.id, "output": output}

    def check_tool(self, exported: dict[str, Any]) -> None:
        module = "openai.types.responses"
        kind = exported.get("type")
        if kind == "tool_search":
            validate_sdk_type(exported, module, "ToolSearchToolParam", "openai", self.title)
            return
        if kind == "namespace":
            validate_sdk_type(exported, module, "NamespaceToolParam", "openai", self.title)
            functions = exported["tools"]
        else:
            validate_sdk_type(exported, module, "FunctionToolParam", "openai", self.title)
            functions = [exported]
        for function in functions:
            if function.get("strict"):
                check_openai_strict(function["parameters"])

    def check_result(self, result: Any, observation: Observation) -> None:
        module = "openai.types.responses.response_input_param"
        validate_sdk_type(result, module, "FunctionCallOutput", "openai", self.title)


def _unprefixed(name: str, group: str) -> str:
    """``name`` without a leading ``group`` and separator (``github__create_issue`` in
    group ``github``: ``create_issue``); as it is otherwise."""
    for separator in ("__", "_", ".", "/", "-"):
        prefix = group + separator
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix) :]
    return name
