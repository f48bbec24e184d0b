"""The output budget (toolplug.budget): real tools, real files, a real MCP server."""

from __future__ import annotations

import base64
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from toolplug import (
    Budget,
    ImageContent,
    Observation,
    TextContent,
    Tool,
    ToolCall,
    Toolset,
    hookimpl,
    tool,
)
from toolplug.testing import registry_from

BIG = "".join(f"line {i:05d} " + "x" * 40 + "\n" for i in range(2000))  # ~102k characters


@tool
def produce(size: int) -> str:
    """Return ``size`` characters of numbered lines."""
    return BIG[:size]


@tool
def also_produce(size: int) -> str:
    """The same as produce, under another name."""
    return BIG[:size]


def spilled_path(text: str) -> Path:
    found = re.search(r"The full output is in (\S+) \(read or grep it", text)
    assert found, text
    return Path(found.group(1))


def test_a_long_result_gets_head_tail_and_a_marker_with_the_whole_in_a_file() -> None:
    with Toolset([produce], budget=10_000) as tools:
        result = tools.call("produce", {"size": len(BIG)})
        text = result.text
        assert not result.is_error
        assert len(text) <= 10_010  # the budget, the marker included (give or take a digit)
        assert text.startswith("line 00000 ")
        assert text.rstrip("\n").endswith(BIG.rstrip("\n")[-40:])
        assert "characters cut here by the output budget (10,000)" in text
        path = spilled_path(text)
        assert path.read_text() == BIG  # the path in the marker reads back the whole
        # Lines are shown whole on both sides of the marker.
        head, _, tail = text.partition("\n[... ")
        assert head.endswith("\n") and tail.split("...]\n", 1)[1].startswith("line ")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        folder = path.parent
    assert not folder.exists()  # close() removes the temp folder


def test_the_default_budget_is_30000_characters() -> None:
    with Toolset([produce]) as tools:
        assert len(tools.call("produce", {"size": 30_000}).text) == 30_000
        assert "output budget (30,000)" in tools.call("produce", {"size": 30_001}).text


def test_a_result_within_the_budget_is_the_same_object() -> None:
    answer = Observation.from_text("y" * 100)

    @tool
    def fixed() -> Observation:
        """Return one observation."""
        return answer

    with Toolset([fixed], budget=100) as tools:
        assert tools.call("fixed") is answer


def test_no_budget_means_no_cut() -> None:
    with Toolset([produce], budget=None) as tools:
        assert tools.call("produce", {"size": len(BIG)}).text == BIG


def test_per_tool_overrides(tmp_path: Path) -> None:
    budget = Budget(chars=50_000, per_tool={"produce": 2_000, "also_produce": None})
    with Toolset([produce, also_produce], budget=budget) as tools:
        assert "output budget (2,000)" in tools.call("produce", {"size": 5_000}).text
        assert tools.call("also_produce", {"size": len(BIG)}).text == BIG


def test_a_tool_that_bounds_its_own_output_is_not_cut() -> None:
    bounded = produce.bind_hooks(None)
    bounded.name = "bounded"
    bounded.bounds_output = True
    with Toolset([bounded, also_produce], budget=1_000) as tools:
        assert tools.call("bounded", {"size": len(BIG)}).text == BIG
        assert "output budget" in tools.call("also_produce", {"size": 5_000}).text
    # ...unless the host names it.
    with Toolset([bounded], budget=Budget(per_tool={"bounded": 1_000})) as tools:
        assert "output budget (1,000)" in tools.call("bounded", {"size": 5_000}).text


def test_bash_declares_its_output_bounded() -> None:
    bash = pytest.importorskip("toolplug_bash")
    grep = pytest.importorskip("toolplug_grep")
    assert bash.BashTool.bounds_output and grep.GrepTool.bounds_output
    with Toolset.load(["bash"], plugins="bash", budget=1_000) as tools:
        text = tools.call("bash", {"command": "seq 1 3000"}).text
    assert "output budget" not in text and "3000" in text


def test_the_total_cap_removes_the_oldest_files(tmp_path: Path) -> None:
    folder = tmp_path / "spill"
    budget = Budget(chars=1_000, folder=folder, total_bytes=25_000)
    with Toolset([produce], budget=budget) as tools:
        paths = [spilled_path(tools.call("produce", {"size": 10_000}).text) for _ in range(3)]
        assert not paths[0].exists()  # 30,000 bytes > 25,000: the oldest went
        assert paths[1].read_text() == paths[2].read_text() == BIG[:10_000]
        # One text over the whole cap is not kept, and the marker says so.
        text = tools.call("produce", {"size": 30_000}).text
        assert "The full output could not be saved, so the cut part is lost" in text
        assert paths[2].exists()
    assert not folder.exists()  # toolplug made it, so toolplug removes it


def test_keep_leaves_the_files_and_a_hosts_folder_stays(tmp_path: Path) -> None:
    with Toolset([produce], budget=Budget(chars=1_000, keep=True)) as tools:
        kept = spilled_path(tools.call("produce", {"size": 5_000}).text)
    assert kept.read_text() == BIG[:5_000]
    kept.unlink()
    kept.parent.rmdir()
    mine = tmp_path / "tool-output"
    mine.mkdir()
    (mine / "notes.txt").write_text("the host's own file")
    with Toolset([produce], budget=Budget(chars=1_000, folder=mine)) as tools:
        spilled = spilled_path(tools.call("produce", {"size": 5_000}).text)
        assert spilled.parent == mine
    assert not spilled.exists()
    assert (mine / "notes.txt").read_text() == "the host's own file"


def test_toolsets_sharing_a_folder_keep_their_files_apart(tmp_path: Path) -> None:
    # Every session of `toolplug mcp serve --output-folder` spills into one folder: a
    # second toolset's first file must not replace the first toolset's first file.
    shared = tmp_path / "tool-output"
    with (
        Toolset([produce], budget=Budget(chars=1_000, folder=shared)) as first,
        Toolset([also_produce], budget=Budget(chars=1_000, folder=shared)) as second,
    ):
        one = spilled_path(first.call("produce", {"size": 5_000}).text)
        two = spilled_path(second.call("also_produce", {"size": 7_000}).text)
        assert one != two
        assert one.read_text() == BIG[:5_000] and two.read_text() == BIG[:7_000]
        first.close()  # one session ends: the other's file stays
        assert not one.exists() and two.read_text() == BIG[:7_000]


def test_an_unwritable_spill_folder_does_not_raise(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with Toolset([produce], budget=Budget(chars=1_000, folder=blocker / "spill")) as tools:
        result = tools.call("produce", {"size": 5_000})
    assert not result.is_error
    assert "The full output could not be saved, so the cut part is lost" in result.text
    assert len(result.text) <= 1_010


def test_dispatch_and_async_calls_are_cut_too() -> None:
    import asyncio

    with Toolset([produce], budget=1_000) as tools:
        [message] = tools.dispatch([ToolCall("c1", "produce", {"size": 5_000})])
        assert "output budget (1,000)" in str(message)

        async def go() -> str:
            return (await tools.acall("produce", {"size": 5_000})).text

        assert "output budget (1,000)" in asyncio.run(go())


def test_a_typed_observation_keeps_its_fields() -> None:
    class Listing(Observation):
        count: int

    @tool
    def listing() -> Listing:
        """A long listing with a count."""
        return Listing(content=[TextContent(text=BIG)], count=2000)

    with Toolset([listing], budget=1_000) as tools:
        result = tools.call("listing")
    assert isinstance(result, Listing) and result.count == 2000
    assert "output budget" in result.text and len(result.text) <= 1_010


def test_a_huge_image_is_replaced_by_a_message() -> None:
    small = ImageContent.from_bytes(b"\x89PNG" + b"\0" * 100, "image/png")
    huge = ImageContent.from_bytes(b"\x89PNG" + b"\0" * 3_000, "image/png")

    @tool
    def pictures() -> list[ImageContent]:
        """Two images."""
        return [small, huge]

    with Toolset([pictures], budget=Budget(block_bytes=1_000)) as tools:
        result = tools.call("pictures")
    assert result.content[0] == small
    message = result.content[1]
    assert isinstance(message, TextContent)
    assert f"image (image/png) of {len(huge.data):,} bytes left out" in message.text
    assert base64.b64decode(small.data).startswith(b"\x89PNG")


def test_an_mcp_servers_tool_is_cut(tmp_path: Path) -> None:
    pytest.importorskip("toolplug_mcp")
    server = Path(__file__).parents[2] / "plugins/mcp/tests/servers/demo_server.py"
    config = {"mcpServers": {"demo": {"command": sys.executable, "args": [str(server)]}}}
    spec = Tool("mcp", {"config": config, "init_timeout": 30})
    with Toolset.load([spec], plugins="mcp", budget=Budget(chars=2_000)) as tools:
        [echo] = [name for name in tools if name.endswith("echo")]
        text = tools.call(echo, {"text": BIG[:20_000]}).text
        assert "output budget (2,000)" in text
        assert spilled_path(text).read_text() == BIG[:20_000]


def test_a_bad_budget_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="chars must be a positive number"):
        Budget(chars=0)
    with pytest.raises(TypeError, match=r"budget= takes a toolplug\.Budget"):
        Toolset([], budget="lots")  # type: ignore[arg-type]


# A third-party plugin, installed the way pip lays one out, whose tool returns long text.
LONG_PLUGIN = """
from toolplug import hookimpl, tool

@tool
def long_text(size: int) -> str:
    \"\"\"Return size characters of numbered lines.\"\"\"
    return "".join(f"row {i:05d}\\n" for i in range(size // 10 + 1))[:size]

@hookimpl
def register_tools(register):
    register(long_text)
"""


def test_toolplug_call_takes_an_output_budget_and_keeps_the_file(
    install_dist: Any, tmp_path: Path
) -> None:
    site = install_dist(
        "toolplug-long", "0.1.0", {"long": "tp_test_long"}, {"tp_test_long": LONG_PLUGIN}
    ).parent
    env = {k: v for k, v in os.environ.items() if k != "TOOLPLUG_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])

    def call(*options: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "toolplug", "call", "long_text", '{"size": 50000}',
             "--plugins", "long", *options],
            capture_output=True, text=True, env=env, timeout=60, check=True,
        )  # fmt: skip
        return done.stdout

    whole = call()
    assert "output budget" not in whole and "row 04999" in whole
    cut = call("--output-budget", "1000")
    assert "cut here by the output budget (1,000)" in cut and len(cut) < 1_100
    path = spilled_path(cut)
    try:
        expected = "".join(f"row {i:05d}\n" for i in range(5001))[:50_000]
        assert path.read_text() == expected  # kept after the process ended
    finally:
        shutil.rmtree(path.parent)


class Watcher:
    """A plugin whose tool_call wrapper records what it saw and adds a line."""

    __name__ = "watcher"

    def __init__(self) -> None:
        self.seen: list[int] = []

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(produce)

    @hookimpl(wrapper=True)
    def tool_call(self, tool: Any, action: Any) -> Generator[None, Observation, Observation]:
        observation = yield
        self.seen.append(len(observation.text))
        return Observation.from_text(observation.text + "\nchecked by the watcher")


def test_hooks_see_the_whole_result_and_what_they_add_is_budgeted_too() -> None:
    watcher = Watcher()
    with Toolset.load(["produce"], registry=registry_from(watcher), budget=1_000) as tools:
        text = tools.call("produce", {"size": 50_000}).text
    assert watcher.seen == [50_000]  # a guard judges the real result
    assert text.endswith("checked by the watcher") and "output budget (1,000)" in text
    assert spilled_path(text).name.endswith("-produce.txt")


def test_a_tool_name_cannot_lead_the_spill_file_elsewhere(tmp_path: Path) -> None:
    sly = produce.bind_hooks(None)
    sly.name = "../../escape/me"
    folder = tmp_path / "spill"
    with Toolset([sly], budget=Budget(chars=1_000, folder=folder, keep=True)) as tools:
        path = spilled_path(tools.call("../../escape/me", {"size": 5_000}).text)
    assert path.parent == folder and path.read_text() == BIG[:5_000]
    assert [p.name for p in tmp_path.iterdir()] == ["spill"]


def test_a_refused_block_stays_in_view_when_the_text_is_cut_too() -> None:
    huge = ImageContent.from_bytes(b"\0" * 3_000, "image/png")

    @tool
    def report() -> list[TextContent | ImageContent]:
        """A long text and a huge image."""
        return [TextContent(text=BIG), huge]

    with Toolset([report], budget=Budget(chars=1_000, block_bytes=1_000)) as tools:
        result = tools.call("report")
    text, refusal = result.content
    assert isinstance(text, TextContent) and "output budget (1,000)" in text.text
    assert isinstance(refusal, TextContent) and "image (image/png) of" in refusal.text
    assert spilled_path(text.text).name.endswith("-report.txt")


def test_a_tool_added_later_takes_the_toolsets_budget() -> None:
    with Toolset([], budget=1_000) as tools:
        tools.update(add=[produce.bind_hooks(None)])
        assert "output budget (1,000)" in tools.call("produce", {"size": 5_000}).text
        tools.add(also_produce.bind_hooks(None))
        assert "output budget (1,000)" in tools.call("also_produce", {"size": 5_000}).text


def test_a_budget_in_tokens_cuts_by_tokens() -> None:
    from toolplug.tokens import count

    with Toolset([produce], budget=Budget(tokens=500)) as tools:
        assert tools.spill is not None and tools.spill.budget.unit == "tokens"
        text = tools.call("produce", {"size": len(BIG)}).text
        assert "tokens cut here by the output budget (500)" in text
        assert count(text) <= 505  # the budget, the marker included (give or take a digit)
        assert text.startswith("line 00000 ")
        assert spilled_path(text).read_text() == BIG
        # Within the budget in tokens though over it in characters: the result as it came.
        small = BIG[:1_500]
        assert len(small) > 500 and count(small) < 500
        assert tools.call("produce", {"size": 1_500}).text == small


def test_a_token_budget_never_splits_a_character_into_garbage() -> None:
    @tool
    def emoji() -> str:
        """Many characters of several bytes each."""
        return "日本語のテキスト 😀🎉 " * 2_000

    with Toolset([emoji], budget=Budget(tokens=200)) as tools:
        result = tools.call("emoji", {})
    assert not result.is_error
    assert "tokens cut here by the output budget (200)" in result.text
    assert result.text.startswith("日本語")


def test_a_token_budget_takes_per_tool_in_tokens_and_refuses_bad_values() -> None:
    budget = Budget(tokens=1_000, per_tool={"produce": 300})
    assert budget.limit_for(produce) == 300 and budget.limit_for(also_produce) == 1_000
    with pytest.raises(ValueError, match="tokens must be a positive number of tokens"):
        Budget(tokens=0)
    with pytest.raises(ValueError, match="produce must be a positive number of tokens"):
        Budget(tokens=100, per_tool={"produce": -1})
