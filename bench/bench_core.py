"""Core benchmarks: the overhead of a tool call, and listing plugins.

Each line prints our time, a floor measured in the same run, their ratio and the target.
Run: python bench/bench_core.py  (with toolplug installed)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import Field
from timing import interleaved, report, save
from toolplug import Action, Observation, TextContent, ToolDefinition

# -- 1. tool.call overhead ---------------------------------------------------------------


class AddAction(Action):
    a: int = Field(description="First number.")
    b: int = Field(description="Second number.")


def add(action: AddAction) -> Observation:
    return Observation(content=[TextContent(text=str(action.a + action.b))])


def bench_call() -> bool:
    tool = ToolDefinition(name="add", description="Add.", action_type=AddAction, executor=add)
    args = {"a": 2, "b": 3}

    def ours() -> object:
        return tool.call(args).llm_content

    def floor() -> object:
        action = AddAction.model_validate(args)
        return add(action).content

    assert ours()[0].text == floor()[0].text == "5"  # type: ignore[index]
    interleaved({"ours": ours, "floor": floor}, 2, number=2000)  # warm up
    times = interleaved({"ours": ours, "floor": floor}, 15, number=2000)
    return report(
        "core", "tool.call(dict) on a trivial tool", times["ours"], times["floor"], 2.0, "us"
    )


# -- 2. toolplug plugins --json with 50 installed plugins ---------------------------------

PLUGIN = """
import json  # a plugin module that costs something to import, like a real one
from toolplug import hookimpl

IMPORTED = True

@hookimpl
def register_tools(register):
    pass
"""


def install_fake_plugins(site: Path, count: int) -> None:
    """Lay out ``count`` plugin distributions the way pip installs them."""
    for i in range(count):
        name = f"benchplug{i:02d}"
        (site / f"{name}.py").write_text(PLUGIN)
        info = site / f"toolplug_{name}-1.0.{i}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: toolplug-{name}\nVersion: 1.0.{i}\n"
        )
        (info / "entry_points.txt").write_text(f"[toolplug]\n{name} = {name}\n")
        (info / "RECORD").write_text("")


def bench_plugins_listing() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        install_fake_plugins(site, 50)
        env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
        ours_cmd = [sys.executable, "-m", "toolplug", "plugins", "--json"]
        floor_cmd = [
            sys.executable,
            "-c",
            "import importlib.metadata as m; m.entry_points(group='toolplug')",
        ]
        listed = json.loads(
            subprocess.run(ours_cmd, env=env, capture_output=True, check=True).stdout
        )
        assert sum(p["name"].startswith("benchplug") for p in listed) == 50
        runs = {
            "ours": lambda: subprocess.run(
                ours_cmd, env=env, check=True, stdout=subprocess.DEVNULL
            ),
            "floor": lambda: subprocess.run(
                floor_cmd, env=env, check=True, stdout=subprocess.DEVNULL
            ),
        }
        interleaved(runs, 2)  # warm up
        times = interleaved(runs, 15)
        ok = report(
            "core",
            "`toolplug plugins --json`, 50 plugins installed",
            times["ours"],
            times["floor"],
            1.5,
        )
        probe = (
            "import sys; from toolplug import ToolRegistry; r = ToolRegistry.from_plugins();"
            "print(sorted(m for m in sys.modules if m.startswith('benchplug')))"
        )
        env["TOOLPLUG_PLUGINS"] = "benchplug07"
        out = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        )
        imported = eval(out.stdout)  # a printed list of names
        only_one = imported == ["benchplug07"]
        print(f"{'enabling 1 of the 50 imports':<52} {imported}  {'PASS' if only_one else 'MISS'}")
        return ok and only_one


if __name__ == "__main__":
    results = [bench_call(), bench_plugins_listing()]
    save("bench_core")
    sys.exit(0 if all(results) else 1)
