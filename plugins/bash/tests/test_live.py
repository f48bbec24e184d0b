"""Live output: a long command's output reaches the host's on_progress as it arrives."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from conftest import MakeBash
from toolplug import Toolset
from toolplug.interaction import Handlers, Progress
from toolplug_bash.output import MASK, LiveOutput

# The command waits for a file that only the progress handler creates when it has seen
# the first line: it ends only if that line was reported while it ran.
WAITS_FOR_THE_HANDLER = "echo first; while [ ! -e seen ]; do sleep 0.05; done; echo second"


def reporting(tmp_path: Path, events: list[Progress]) -> Any:
    def on_progress(event: Progress) -> None:
        events.append(event)
        if "first" in (event.message or ""):
            (tmp_path / "seen").touch()

    return on_progress


def test_a_long_commands_output_arrives_while_it_runs(make_bash: MakeBash, tmp_path: Path) -> None:
    events: list[Progress] = []
    toolset = Toolset(
        [make_bash(timeout=60)], handlers=Handlers(on_progress=reporting(tmp_path, events))
    )
    observation = toolset.call("bash", {"command": WAITS_FOR_THE_HANDLER}, call_id="b1")
    assert observation.exit_code == 0, observation.text
    assert "".join(e.message or "" for e in events) == "first\nsecond\n"
    assert {(e.tool, e.call_id, e.total) for e in events} == {("bash", "b1", None)}
    printed = [e.progress for e in events]
    assert printed == sorted(set(printed)), "progress grows with each report"


def test_live_output_on_the_async_path_and_while_waiting(
    make_bash: MakeBash, tmp_path: Path
) -> None:
    events: list[Progress] = []
    toolset = Toolset(
        [make_bash(timeout=60)], handlers=Handlers(on_progress=reporting(tmp_path, events))
    )

    async def main() -> tuple[Any, Any]:
        # The first call comes back while the command still runs (a one-second wait);
        # the second waits for it (is_input with no text) and sees it end.
        started = await toolset.acall(
            "bash", {"command": f"sleep 1.5; {WAITS_FOR_THE_HANDLER}", "timeout": 1}
        )
        waited = await toolset.acall("bash", {"command": "", "is_input": True, "timeout": 60})
        return started, waited

    started, waited = asyncio.run(main())
    assert started.running is True, started.text
    assert waited.exit_code == 0, waited.text
    assert "second" in "".join(e.message or "" for e in events)


def test_secrets_are_masked_in_live_output(make_bash: MakeBash, tmp_path: Path) -> None:
    events: list[Progress] = []
    bash = make_bash(timeout=60, secrets=["hunter2"])
    toolset = Toolset([bash], handlers=Handlers(on_progress=reporting(tmp_path, events)))
    command = "echo first hunter2; " + WAITS_FOR_THE_HANDLER.removeprefix("echo first; ")
    toolset.call("bash", {"command": command})
    text = "".join(e.message or "" for e in events)
    assert "hunter2" not in text and MASK.decode() in text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_live_output_is_rate_limited_and_quiet_for_quick_commands() -> None:
    clock, sent = Clock(), []
    live = LiveOutput(lambda n, text: sent.append((n, text)), 0.5, clock=clock)
    live.write(b"a\n")
    live.tick()
    clock.now += 0.2
    live.finish()
    assert sent == [], "a command shorter than the period sends nothing"

    live = LiveOutput(lambda n, text: sent.append((n, text)), 0.5, clock=clock)
    live.write(b"one\n")
    clock.now += 0.6
    live.tick()
    live.write(b"two\n")
    live.tick()  # too soon after the last report
    clock.now += 0.5
    live.write(b"caf\xc3")  # a character cut in two by the read waits for its end
    live.tick()
    live.write(b"\xa9 \x1b[31mred\x1b[0m\r\n")
    live.finish()
    assert sent == [(4, "one\n"), (11, "two\ncaf"), (28, "é red\n")]


def test_live_output_keeps_a_bounded_tail() -> None:
    clock, sent = Clock(), []
    live = LiveOutput(lambda n, text: sent.append((n, text)), 0.5, keep=8, clock=clock)
    live.write(b"0123456789abcdef")
    clock.now += 1
    live.tick()
    assert sent == [(16, "[... 8 bytes not shown live ...]\n89abcdef")]


def test_the_bash_pages_example_runs(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    import re

    page = (Path(__file__).parents[3] / "docs" / "tools" / "bash.md").read_text()
    section = page.split("## Live output", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    exec(compile(code[1], "docs/tools/bash.md", "exec", dont_inherit=True), {})
    assert capsys.readouterr().out == "step 1\nstep 2\nstep 3\n"
