"""A factory's params are read once from its signature: described in annotations, else
in the docstring, and checked by one strict model (``toolplug.params``)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field
from toolplug import Tool, ToolDefinition, ToolParamsError, ToolRegistry
from toolplug.params import factory_params

# A plugin module as plugins write them: the context's type is imported only for type
# checking, so that one annotation does not resolve at run time.
FACTORY = """
from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

if TYPE_CHECKING:
    from toolplug import ToolContext, ToolDefinition


def servers(
    context: ToolContext,
    *,
    timeout: Annotated[float, Field(gt=0, description="Seconds a call may take.")] = 60.0,
    names: Annotated[list[str], Field(description="The servers to start.")] = [],
) -> list[ToolDefinition[Any, Any]]:
    return []
"""


def load(tmp_path: Path) -> Any:
    path = tmp_path / "tp_test_servers.py"
    path.write_text(textwrap.dedent(FACTORY))
    spec = importlib.util.spec_from_file_location("tp_test_servers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.servers


def test_a_context_type_seen_only_by_type_checkers_spoils_no_other_param(
    tmp_path: Path,
) -> None:
    servers = load(tmp_path)
    registry = ToolRegistry()
    registry.register(servers, name="servers")

    properties = registry.get("servers").params.schema["properties"]
    assert properties["timeout"] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Seconds a call may take.",
        "default": 60.0,
    }
    assert properties["names"]["description"] == "The servers to start."
    with pytest.raises(ToolParamsError, match=r"- timeout: Input should be greater than 0"):
        registry.resolve(Tool("servers", {"timeout": -1}))
    with pytest.raises(ToolParamsError, match=r"- names: Input should be a valid list"):
        registry.resolve(Tool("servers", {"names": "one"}))
    assert registry.resolve(Tool("servers", {"timeout": 5, "names": ["a"]})) == []


def test_an_annotations_description_wins_over_the_docstrings() -> None:
    def make(
        context: Any,
        *,
        depth: Annotated[int, Field(ge=1, description="From the annotation.")] = 3,
        width: int = 2,
    ) -> list[ToolDefinition[Any, Any]]:
        """Make it.

        Args:
            depth: From the docstring.
            width: Only in the docstring.
        """
        return []

    properties = factory_params(make).schema["properties"]

    assert properties["depth"]["description"] == "From the annotation."
    assert properties["width"]["description"] == "Only in the docstring."


def test_a_factory_is_read_once() -> None:
    def make(context: Any, *, size: int = 1) -> list[ToolDefinition[Any, Any]]:
        return []

    assert factory_params(make) is factory_params(make)
