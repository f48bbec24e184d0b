"""What a model reads from every built-in tool when a host prefers ``structuredContent``.

pydantic-ai, openai-agents (``use_structured_content=True``) and smolagents
(``structured_output=True``) hand the model a tool result's ``structuredContent`` instead
of its text blocks. These tests serve the built-in tools with a real ``toolplug mcp
serve`` subprocess (stdio) and call each one through pydantic-ai's own MCP client, with
a ``FunctionModel`` as the model: it calls the tools one by one and keeps every tool
return it is given; and through openai-agents' own step from an MCP result to the
model's tool output. Each must hold the text the tool wrote for the model: the file's
lines, the command's output, the matches, the thought and the message.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import RunContextWrapper
from agents.mcp import MCPServerStdio, MCPUtil
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

#: One tool call each: (tool, arguments, texts the model must be given back).
CALLS: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "file_editor",
        {"command": "view", "path": "src/app.py"},
        ["     1\timport os", "     2\tVALUE = 'alpha-marker'", "     3\tprint(VALUE)"],
    ),
    (
        "file_editor",
        {"command": "view", "path": "src/app.py", "view_range": [2, 2]},
        ["     2\tVALUE = 'alpha-marker'"],
    ),
    ("file_editor", {"command": "view", "path": "."}, ["./src/app.py", "./notes.md"]),
    (
        "file_editor",
        {"command": "create", "path": "new.txt", "file_text": "first\n"},
        ["Created new.txt"],
    ),
    (
        "file_editor",
        {"command": "str_replace", "path": "new.txt", "old_str": "first", "new_str": "second"},
        ["     1\tsecond", "-first", "+second"],
    ),
    (
        "file_editor",
        {"command": "insert", "path": "new.txt", "insert_line": 1, "new_str": "third"},
        ["     2\tthird", "+third"],
    ),
    ("file_editor", {"command": "undo_edit", "path": "new.txt"}, ["new.txt"]),
    ("bash", {"command": "echo bash-said-$((40 + 2)); (exit 3)"}, ["bash-said-42", "Exit code 3"]),
    ("bash", {"command": "cat new.txt"}, ["second", "Exit code 0"]),
    ("glob", {"pattern": "**/*.py"}, ["src/app.py", "1 file"]),
    ("grep", {"pattern": "alpha-marker"}, ["src/app.py", "1 file"]),
    (
        "grep",
        {"pattern": "alpha-marker", "output_mode": "content"},
        ["src/app.py:2:VALUE = 'alpha-marker'"],
    ),
    ("grep", {"pattern": "VALUE", "output_mode": "count"}, ["src/app.py:2"]),
    ("think", {"thought": "check the config first"}, ["check the config first", "logged"]),
    ("finish", {"message": "all three steps done"}, ["all three steps done", "finished"]),
]


def strings_in(value: Any) -> Iterator[str]:
    """Every string a tool return holds: itself, or the values of its JSON data."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def scripted_model(calls: list[tuple[str, dict[str, Any]]], seen: list[Any]) -> FunctionModel:
    """A model that makes ``calls`` one per turn and keeps each tool return it reads."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, (ToolReturnPart, RetryPromptPart)):
                    seen.append(part)
        if len(seen) < len(calls):
            name, arguments = calls[len(seen)]
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(arguments))])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


def serve_command(workspace: Path) -> tuple[str, list[str], dict[str, str]]:
    """``toolplug mcp serve`` (stdio) in ``workspace``: the command, its args, its env."""
    toolplug = shutil.which("toolplug", path=str(Path(sys.executable).parent)) or "toolplug"
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    return toolplug, ["mcp", "serve", "--workspace", str(workspace)], env


def served_toolset(workspace: Path) -> MCPToolset[None]:
    """pydantic-ai's MCP client for ``toolplug mcp serve`` in ``workspace``."""
    toolplug, args, env = serve_command(workspace)
    transport = StdioTransport(toolplug, args, env=env, cwd=str(workspace), keep_alive=False)
    return MCPToolset(transport, init_timeout=60, read_timeout=60)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("import os\nVALUE = 'alpha-marker'\nprint(VALUE)\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    return tmp_path


async def test_pydantic_ai_gives_the_model_what_every_built_in_tool_wrote(
    workspace: Path,
) -> None:
    seen: list[Any] = []
    calls = [(name, arguments) for name, arguments, _ in CALLS]
    agent = Agent(scripted_model(calls, seen), toolsets=[served_toolset(workspace)])
    result = await agent.run("use every tool once")
    assert result.output == "done"
    assert len(seen) == len(CALLS)
    missing = []
    for (name, arguments, expected), part in zip(CALLS, seen):
        where = f"{name} {arguments}"
        assert isinstance(part, ToolReturnPart), f"{where} failed: {part.model_response()}"
        given = list(strings_in(part.content))
        missing += [
            f"{where}: not given {text!r}; it got {part.content!r}"
            for text in expected
            if not any(text in s for s in given)
        ]
    assert not missing, "\n".join(missing)


async def test_openai_agents_with_structured_content_gives_the_model_what_they_wrote(
    workspace: Path,
) -> None:
    # openai-agents' own step from an MCP result to the model's tool output: with
    # use_structured_content=True it is the JSON of structuredContent alone.
    toolplug, args, env = serve_command(workspace)
    params = {"command": toolplug, "args": args, "env": env, "cwd": str(workspace)}
    missing = []
    async with MCPServerStdio(
        params, use_structured_content=True, client_session_timeout_seconds=60
    ) as server:
        tools = {tool.name: tool for tool in await server.list_tools()}
        for name, arguments, expected in CALLS:
            output = await MCPUtil.invoke_mcp_tool(
                server, tools[name], RunContextWrapper(None), json.dumps(arguments)
            )
            assert isinstance(output, str), f"{name} {arguments}: {output!r}"
            given = list(strings_in(json.loads(output)))
            missing += [
                f"{name} {arguments}: not given {text!r}; it got {output}"
                for text in expected
                if not any(text in s for s in given)
            ]
    assert not missing, "\n".join(missing)
