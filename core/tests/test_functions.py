"""Typed functions as tools: ToolDefinition.from_function and the @tool decorator."""

from __future__ import annotations

import asyncio
import re
import types
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import Field
from toolplug import (
    Action,
    ImageContent,
    Observation,
    TextContent,
    ToolAnnotations,
    ToolDefinition,
    hookimpl,
    tool,
)
from toolplug.functions import parse_docstring
from toolplug.testing import registry_from, run_toolplug, validate_tool_exports

README = Path(__file__).parents[2] / "README.md"
WRITING_A_TOOL = Path(__file__).parents[2] / "docs" / "writing-a-tool.md"


def search_files(
    pattern: str,
    root: str = ".",
    limit: Optional[int] = None,  # noqa: UP045 -- Optional is what many users write
    kinds: list[str] | None = None,
) -> str:
    """Find files whose names match a pattern.

    Searches below a directory; hidden files are skipped.

    Args:
        pattern: A glob pattern, such as ``*.py``.
        root (str): The directory to search,
            relative to the workspace.
        limit: At most this many names.
        kinds: Only these file kinds.

    Returns:
        The names, one a line.
    """
    return f"{pattern} in {root}, limit {limit}, kinds {kinds}"


async def fetch_title(url: str, *, timeout: float = 5.0) -> str:
    """Fetch a page's title.

    :param url: The page's address.
    :param float timeout: Seconds to wait
        for the server.
    :returns: The title.
    """
    await asyncio.sleep(0)
    return f"title of {url} within {timeout}"


def test_google_docstring_gives_description_and_field_descriptions() -> None:
    t = ToolDefinition.from_function(search_files)
    assert t.name == "search_files"
    assert t.description == (
        "Find files whose names match a pattern.\n\nSearches below a directory; hidden files "
        "are skipped."
    )
    props = t.input_schema()["properties"]
    assert props["pattern"]["description"] == "A glob pattern, such as ``*.py``."
    assert props["root"]["description"] == "The directory to search, relative to the workspace."
    assert props["limit"]["description"] == "At most this many names."
    assert "Returns" not in t.description and "one a line" not in str(props)


def test_defaults_and_optionals_map_as_expected() -> None:
    t = ToolDefinition.from_function(search_files)
    schema = t.input_schema()
    assert schema["required"] == ["pattern"]
    props = schema["properties"]
    assert props["root"]["default"] == "."
    # `int | None = None`: the plain type, left out (an explicit null still works).
    assert props["limit"]["type"] == "integer" and "default" not in props["limit"]
    assert t.call({"pattern": "*.py"}).text == "*.py in ., limit None, kinds None"
    assert t.call({"pattern": "*.md", "limit": None, "kinds": ["file"]}).text == (
        "*.md in ., limit None, kinds ['file']"
    )
    missing = t.call({"root": "src"})
    assert missing.is_error and "pattern" in missing.text


def test_rest_docstring_and_an_async_function() -> None:
    t = ToolDefinition.from_function(fetch_title)
    assert t.description == "Fetch a page's title."
    props = t.input_schema()["properties"]
    assert props["url"]["description"] == "The page's address."
    assert props["timeout"]["description"] == "Seconds to wait for the server."
    assert t.is_async
    assert t.call({"url": "http://x"}).text == "title of http://x within 5.0"
    obs = asyncio.run(t.acall({"url": "http://y", "timeout": 1}))
    assert obs.text == "title of http://y within 1.0"


def test_annotated_field_description_wins_over_the_docstring() -> None:
    def paginate(
        page: Annotated[int, Field(description="Page number, from 1.", ge=1)] = 1,
        size: Annotated[int, Field(le=100)] = 20,
    ) -> str:
        """List items.

        Args:
            page: The docstring's words for page.
            size: Items a page.
        """
        return f"page {page} of {size}"

    t = ToolDefinition.from_function(paginate)
    props = t.input_schema()["properties"]
    assert props["page"]["description"] == "Page number, from 1."
    assert props["page"]["minimum"] == 1
    assert props["size"] == {
        "default": 20,
        "description": "Items a page.",
        "maximum": 100,
        "type": "integer",
    }
    bad = t.call({"page": 0})
    assert bad.is_error and "page" in bad.text
    assert t.call({}).text == "page 1 of 20"


def test_the_action_is_an_action_that_refuses_unknown_arguments() -> None:
    t = ToolDefinition.from_function(search_files)
    assert issubclass(t.action_type, Action)
    assert t.action_type.model_config.get("extra") == "forbid"
    assert t.input_schema()["additionalProperties"] is False
    obs = t.call({"pattern": "*", "colour": "red"})
    assert "ignored the unknown argument 'colour'" in obs.text


def test_every_kind_of_result_becomes_an_observation() -> None:
    image = ImageContent(data="aGk=", mimeType="image/png")

    class Count(Observation):
        words: int = Field(description="How many words.")

    def as_text() -> str:
        """Text."""
        return "plain"

    def as_observation() -> Observation:
        """An observation."""
        return Observation.error("bad input")

    def as_block() -> ImageContent:
        """A block."""
        return image

    def as_blocks() -> list[TextContent | ImageContent]:
        """Blocks."""
        return [TextContent(text="see"), image]

    assert ToolDefinition.from_function(as_text).call().text == "plain"
    assert ToolDefinition.from_function(as_observation).call().is_error
    assert ToolDefinition.from_function(as_block).call().content == [image]
    assert ToolDefinition.from_function(as_blocks).call().content == [
        TextContent(text="see"),
        image,
    ]

    def count(text: str) -> Count:
        """Count words.

        Args:
            text: The text.
        """
        return Count.from_text(str(len(text.split())), words=len(text.split()))

    counted = ToolDefinition.from_function(count, name="count")
    assert counted.observation_type is Count
    assert counted.output_schema() is not None
    obs = counted.call({"text": "a b"})
    assert isinstance(obs, Count) and obs.words == 2


def test_the_tool_decorator_bare_and_with_options() -> None:
    @tool
    def shout(text: str) -> str:
        """Shout a text.

        Args:
            text: What to shout.
        """
        return text.upper()

    @tool(name="whisper", annotations=ToolAnnotations(readOnlyHint=True), timeout=5)
    async def quiet(text: str) -> str:
        """Whisper a text.

        Args:
            text: What to whisper.
        """
        return text.lower()

    assert isinstance(shout, ToolDefinition) and shout.name == "shout"
    assert quiet.name == "whisper" and quiet.read_only and quiet.timeout == 5
    for t in (shout, quiet):
        validate_tool_exports(t)

    @hookimpl
    def register_tools(register: Any) -> None:
        register(shout)
        register(quiet)

    registry = registry_from(types.SimpleNamespace(register_tools=register_tools))
    (s,) = registry.resolve("shout")
    (w,) = registry.resolve("whisper")
    assert s.call({"text": "hi"}).text == "HI"
    assert asyncio.run(w.acall({"text": "HI"})).text == "hi"


def test_awkward_parameters() -> None:
    def tag(name: str, /, json: bool = False, mode: Literal["a", "b"] = "a") -> str:
        """Tag something.

        Args:
            name: The name.
            json: Answer as JSON.
            mode: The mode.
        """
        return f"{name} json={json} mode={mode}"

    t = ToolDefinition.from_function(tag)
    props = t.input_schema()["properties"]
    assert list(props) == ["name", "json", "mode"], "names as the model sees them"
    assert props["json"]["description"] == "Answer as JSON."
    assert props["mode"]["enum"] == ["a", "b"]
    assert t.call({"name": "x", "json": True, "mode": "b"}).text == "x json=True mode=b"
    assert t.call({"name": "x", "mode": "c"}).is_error


def test_a_function_of_an_action_is_used_as_the_executor() -> None:
    class Add(Action):
        a: int = Field(description="First.")
        b: int = Field(description="Second.")

    def add(action: Add) -> str:
        """Add two numbers."""
        return str(action.a + action.b)

    t = ToolDefinition.from_function(add)
    assert t.action_type is Add and t.executor is add
    assert t.call({"a": 2, "b": 3}).text == "5"


def test_a_raising_function_is_an_error_observation() -> None:
    def divide(a: float, b: float) -> str:
        """Divide a by b."""
        return str(a / b)

    obs = ToolDefinition.from_function(divide).call({"a": 1, "b": 0})
    assert (
        obs.is_error
        and obs.text == "Tool 'divide' failed: ZeroDivisionError: float division by zero"
    )


def test_functions_that_cannot_be_tools_say_why() -> None:
    def variadic(*names: str) -> str:
        """Greet."""
        return ""

    def undocumented(x: int) -> str:
        return ""

    with pytest.raises(TypeError, match=r"takes \*names: a tool's parameters must be named"):
        ToolDefinition.from_function(variadic)
    with pytest.raises(ValueError, match="has no docstring"):
        ToolDefinition.from_function(undocumented)
    assert ToolDefinition.from_function(undocumented, description="Do x.").description == "Do x."
    with pytest.raises(ValueError, match="needs a name: pass name="):
        ToolDefinition.from_function(lambda x: x, description="Echo.")


def test_parse_docstring_google_and_rest_edge_cases() -> None:
    doc = (
        "Summary.\n\nArgs:\n    a: First\n        and more.\n    *rest: Ignored kind.\n\n"
        "Raises:\n    ValueError: never a param."
    )
    assert parse_docstring(doc) == ("Summary.", {"a": "First and more.", "rest": "Ignored kind."})
    doc = (
        "Summary.\n:param x: X.\n:type x: int\n:param str y: Y\n  continued.\n"
        ":raises ValueError: no."
    )
    assert parse_docstring(doc) == ("Summary.", {"x": "X.", "y": "Y continued."})
    assert parse_docstring("") == ("", {})


def test_the_readme_example_runs() -> None:
    """The README's "Writing a tool" example, run as a plugin module and called."""
    section = README.read_text().split("## Writing a tool", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    module = types.ModuleType("readme_example")
    exec(compile(code.group(1), "README.md", "exec"), module.__dict__)
    registry = registry_from(module)
    (word_count,) = registry.resolve("word_count")
    assert word_count.call({"text": "a b c"}).text == "3"
    assert word_count.read_only
    assert word_count.input_schema()["properties"]["text"]["description"]


def test_the_readme_example_installed_answers_toolplug_call(
    install_dist: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the README says: an entry point at the module, then `toolplug call` prints 3."""
    section = README.read_text().split("## Writing a tool", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    info = install_dist(
        "toolplug-word-count",
        "0.1.0",
        {"word_count": "tp_test_readme"},
        {"tp_test_readme": code.group(1)},
    )
    monkeypatch.setenv("PYTHONPATH", str(info.parent))
    result = run_toolplug("call", "word_count", '{"text": "a b c"}', plugins="word_count")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "3"


def test_the_function_example_of_writing_a_tool_runs() -> None:
    section = WRITING_A_TOOL.read_text().split("## The short way: a function", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    module = types.ModuleType("docs_example")
    exec(compile(code.group(1), "writing-a-tool.md", "exec"), module.__dict__)
    (slugify,) = registry_from(module).resolve("slugify")
    assert slugify.call({"title": "Hello, World!"}).text == "hello-world"
    assert slugify.call({"title": "Hello, World!", "max_length": 8}).text == "hello-wo"
    refused = slugify.call({"title": "!!!"})
    assert refused.is_error and "no letters or digits" in refused.text
    validate_tool_exports(slugify)


def test_a_described_param_that_defaults_to_none_keeps_its_description() -> None:
    # Python 3.10's get_type_hints wraps Optional[...] around a param whose default is
    # None, which hid the Annotated Field inside: the description went one level down.
    @tool
    def pick(
        limit: Annotated[int | None, Field(description="At most this many.", ge=1)] = None,
    ) -> str:
        """Pick."""
        return str(limit)

    properties = pick.action_type.model_json_schema()["properties"]
    assert properties["limit"]["description"] == "At most this many."
    assert properties["limit"]["anyOf"] == [{"minimum": 1, "type": "integer"}, {"type": "null"}]
