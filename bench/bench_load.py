"""Benchmark of loading one tool when many plugins are installed.

`Toolset.load(["loadplug07"])` in a fresh process, in a venv where 50 plugin
distributions are installed, against the same in a venv where only that one plugin is
installed (the floor). Every plugin is a real distribution, built with hatchling and
installed with uv, and does what a real plugin's import does: it defines pydantic
models for its input and output and a tool. A third contender shows the cost the
selective load saves: the same 50-plugin venv with every plugin enabled by name, which
is what `Toolset.load` did before it matched tool names to entry points.

The contenders alternate in rounds, so that a burst of load on the shared machine hits
them alike. Run: python bench/bench_load.py (needs uv; builds everything in a temporary
directory, about half a minute).

A second part (``--mcp-only`` runs it alone, in this interpreter's environment, which
must have toolplug-mcp and toolplug-think installed) times loading the ``mcp`` tool with
one stdio MCP server, cold, in a fresh process: the client's imports, the server started,
the handshake, the tool list. The server is a few lines of standard-library Python
(:data:`TINY_SERVER`), so that what is timed is the client's side. The floor is what no
MCP client can go below: ``import mcp`` (the SDK's ``__init__`` imports its client
session and every transport module) and the core's own load of a tool with no MCP
(``think``), in one process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import interleaved, report, save

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = 50
CHOSEN = "loadplug07"
ROUNDS = 31
TARGET = 1.1

PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "toolplug-{name}"
version = "1.0.{index}"
description = "A plugin for toolplug's load benchmark."
requires-python = ">=3.10"
dependencies = ["toolplug"]

[project.entry-points.toolplug]
{name} = "toolplug_{name}"

[tool.hatch.build.targets.wheel]
packages = ["src/toolplug_{name}"]
"""

MODULE = '''\
"""Plugin {name}: a search tool with typed input and output, as a real plugin has."""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import BaseModel, Field
from toolplug import Action, Observation, ToolAnnotations, ToolDefinition, hookimpl


class Order{index}(str, enum.Enum):
    RELEVANCE = "relevance"
    NEWEST = "newest"
    OLDEST = "oldest"


class Filter{index}(BaseModel):
    field: str = Field(description="The field to filter on.")
    op: Literal["eq", "ne", "lt", "gt", "contains"] = Field("eq", description="How to compare.")
    value: str = Field(description="The value to compare with.")


class Search{index}(Action):
    query: str = Field(description="What to search for.")
    limit: int = Field(10, ge=1, le=100, description="How many results at most.")
    order: Order{index} = Field(Order{index}.RELEVANCE, description="The order of the results.")
    filters: list[Filter{index}] = Field(default_factory=list, description="All must match.")


class Hit{index}(BaseModel):
    title: str
    url: str
    score: float = 0.0


class Results{index}(Observation):
    hits: list[Hit{index}] = Field(default_factory=list, description="The results, best first.")
    total: int = Field(0, description="How many results there are in all.")


def search(action: Search{index}) -> Results{index}:
    urls = [f"https://example.org/{{i}}" for i in range(action.limit)]
    hits = [Hit{index}(title=action.query, url=url) for url in urls]
    return Results{index}.from_text(f"{{len(hits)}} results", hits=hits, total=len(hits))


tool = ToolDefinition(
    name="{name}",
    description="Search the {name} index.",
    action_type=Search{index},
    observation_type=Results{index},
    executor=search,
    annotations=ToolAnnotations(readOnlyHint=True),
)


@hookimpl
def register_tools(register):
    register(tool)
'''

BUILD = """
import os, sys
from hatchling.build import build_wheel
out = sys.argv[1]
for project in sys.argv[2:]:
    os.chdir(project)
    build_wheel(out)
"""

LOAD = (
    "from toolplug import Toolset\n"
    f"tools = Toolset.load([{CHOSEN!r}])\n"
    f"assert tools.call({CHOSEN!r}, {{'query': 'q', 'limit': 2}}).text == '2 results'\n"
    "tools.close()\n"
)

PROBE = (
    "import json, sys\n"
    "from toolplug import Toolset\n"
    f"Toolset.load([{CHOSEN!r}]).close()\n"
    "print(json.dumps(sorted(m for m in sys.modules if m.startswith('toolplug_loadplug'))))\n"
)


#: Rounds of the MCP part, and its target: the load within so much of the floor.
MCP_ROUNDS = 15
MCP_TARGET = 1.4

#: A stdio MCP server in the standard library alone: one tool, the initialize handshake.
TINY_SERVER = """
import json, sys
def answer(message_id, result=None, error=None):
    reply = {"jsonrpc": "2.0", "id": message_id}
    reply.update({"error": error} if error else {"result": result})
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
TOOL = {"name": "echo", "description": "Say it back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
for line in sys.stdin:
    message = json.loads(line)
    method, message_id = message.get("method"), message.get("id")
    if message_id is None:
        continue
    if method == "initialize":
        answer(message_id, {"protocolVersion": message["params"]["protocolVersion"],
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "tiny", "version": "1"}})
    elif method == "tools/list":
        answer(message_id, {"tools": [TOOL]})
    elif method == "tools/call":
        text = message["params"]["arguments"].get("text", "")
        answer(message_id, {"content": [{"type": "text", "text": text}]})
    else:
        answer(message_id, error={"code": -32601, "message": "Method not found"})
"""

LOAD_MCP = (
    "import json, sys\n"
    "from toolplug import Tool, Toolset\n"
    "config = {'mcpServers': {'tiny': {'command': sys.executable, 'args': [sys.argv[1]]}}}\n"
    "tools = Toolset.load([Tool('mcp', {'config': config})], plugins='mcp', workspace='.')\n"
    "assert 'echo' in tools, list(tools)\n"
    "tools.close()\n"
)

LOAD_FLOOR = (
    "import mcp\n"
    "from toolplug import Toolset\n"
    "Toolset.load(['think'], plugins='think', workspace='.').close()\n"
)

UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))


def uv(*args: str) -> None:
    subprocess.run([UV, *args, "--quiet"], check=True)


def build(tmp: Path) -> tuple[Path, list[Path]]:
    """Write and build the 50 plugins and the core; the core's wheel and the plugins'."""
    projects = []
    for index in range(PLUGINS):
        name = f"loadplug{index:02d}"
        project = tmp / "src" / name
        package = project / "src" / f"toolplug_{name}"
        package.mkdir(parents=True)
        (project / "pyproject.toml").write_text(PYPROJECT.format(name=name, index=index))
        (package / "__init__.py").write_text(MODULE.format(name=name, index=index))
        projects.append(project)
    core = tmp / "src" / "core"
    shutil.copytree(ROOT / "core", core, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    builder = tmp / "build-env"
    uv("venv", str(builder))
    uv("pip", "install", "--python", str(builder / "bin" / "python"), "hatchling")
    wheels = tmp / "wheels"
    wheels.mkdir()
    subprocess.run(
        [str(builder / "bin" / "python"), "-c", BUILD, str(wheels), str(core), *map(str, projects)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (core_wheel,) = wheels.glob("toolplug-*.whl")
    plugin_wheels = sorted(wheels.glob("toolplug_loadplug*.whl"))
    assert len(plugin_wheels) == PLUGINS
    return core_wheel, plugin_wheels


def make_venv(path: Path, wheels: list[Path]) -> Path:
    uv("venv", str(path))
    python = path / "bin" / "python"
    uv("pip", "install", "--python", str(python), *map(str, wheels))
    return python


def mcp_load() -> bool:
    """Loading the ``mcp`` tool with one stdio server, cold, against its floor."""
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLPLUG_MCP_CONFIG", "PYTHONPATH")}
    with tempfile.TemporaryDirectory() as tmp_name:
        server = Path(tmp_name) / "tiny_server.py"
        server.write_text(TINY_SERVER)

        def run(*argv: str) -> object:
            return subprocess.run(
                [sys.executable, *argv],
                env=env,
                cwd=tmp_name,
                check=True,
                stdout=subprocess.DEVNULL,
            )

        contenders = {
            "mcp": lambda: run("-c", LOAD_MCP, str(server)),
            "floor": lambda: run("-c", LOAD_FLOOR),
            "import mcp": lambda: run("-c", "import mcp"),
        }
        interleaved(contenders, 2)  # warm the file cache and the bytecode
        times = interleaved(contenders, MCP_ROUNDS)
    ok = report(
        "mcp",
        "load with one stdio MCP server, cold, in a subprocess",
        times["mcp"],
        times["floor"],
        MCP_TARGET,
    )
    report("mcp", "  import mcp alone, in a subprocess", times["import mcp"], None)
    print(f"  (medians of {MCP_ROUNDS} rounds, the contenders alternated in each)")
    return ok


def main() -> bool:
    if "--mcp-only" in sys.argv:
        ok = mcp_load()
        save("bench_load_mcp")
        return ok
    mcp_ok = mcp_load()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        core, plugins = build(tmp)
        (chosen,) = [w for w in plugins if f"_{CHOSEN}-" in w.name]
        one = make_venv(tmp / "one", [core, chosen])
        fifty = make_venv(tmp / "fifty", [core, *plugins])

        env = {k: v for k, v in os.environ.items() if k not in ("TOOLPLUG_PLUGINS", "PYTHONPATH")}
        every = dict(env, TOOLPLUG_PLUGINS=",".join(f"loadplug{i:02d}" for i in range(PLUGINS)))

        def probe(python: Path, run_env: dict[str, str]) -> list[str]:
            out = subprocess.run(
                [str(python), "-c", PROBE], env=run_env, capture_output=True, text=True, check=True
            )
            names: list[str] = json.loads(out.stdout)
            return names

        imported = probe(fifty, env)
        assert len(probe(fifty, every)) == PLUGINS

        def run(python: Path, run_env: dict[str, str]) -> object:
            return subprocess.run([str(python), "-c", LOAD], env=run_env, check=True)

        contenders = {
            "50 installed": lambda: run(fifty, env),
            "1 installed": lambda: run(one, env),
            "50 installed, all loaded": lambda: run(fifty, every),
        }
        interleaved(contenders, 2)  # warm the file cache and the bytecode
        times = interleaved(contenders, ROUNDS)

    ours, floor, before = (
        times["50 installed"],
        times["1 installed"],
        times["50 installed, all loaded"],
    )
    # The floor of both: the same load with only the 1 plugin installed.
    ok = report("core", "Toolset.load of 1 tool, 50 plugins installed", ours, floor, TARGET)
    report("core", "the same, every plugin loaded (no selective load)", before, floor)
    only_one = imported == [f"toolplug_{CHOSEN}"]
    verdict = "PASS" if only_one else "MISS"
    print(f"{'  plugin modules it imports, 50 installed':<52} {imported}  {verdict}")
    print(f"  (medians of {ROUNDS} rounds, the contenders alternated in each)")
    save("bench_load")
    return ok and only_one and mcp_ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
