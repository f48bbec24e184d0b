"""The installed distribution, seen through the ``toolplug`` command line."""

from __future__ import annotations

import json

from toolplug.testing import run_toolplug


def test_toolplug_plugins_lists_finish_with_its_version() -> None:
    done = run_toolplug("plugins", "--json")

    assert done.returncode == 0, done.stderr
    finish = next(p for p in json.loads(done.stdout) if p["name"] == "finish")
    assert finish["distribution"] == "toolplug-finish"
    assert finish["version"] == "0.2.0"
    assert finish["enabled"] is True


def test_toolplug_plugins_finish_enables_finish_alone() -> None:
    done = run_toolplug("plugins", "--json", plugins="finish")

    assert done.returncode == 0, done.stderr
    enabled = [p["name"] for p in json.loads(done.stdout) if p["enabled"]]
    assert enabled == ["finish"]


def test_only_the_finish_tool_is_loaded_when_finish_alone_is_enabled() -> None:
    done = run_toolplug("tools", "--json", plugins="finish")

    assert done.returncode == 0, done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)] == ["finish"]


def test_toolplug_call_finish_gives_the_typed_result() -> None:
    done = run_toolplug("call", "finish", '{"message": "Done: 3 files fixed."}', "--json")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structuredContent"] == {
        "text": "The task is marked as finished; your message goes to the user.",
        "finished": True,
        "message": "Done: 3 files fixed.",
    }


def test_toolplug_call_finish_with_a_blank_message_exits_1() -> None:
    done = run_toolplug("call", "finish", '{"message": ""}', plugins="finish")

    assert done.returncode == 1
    assert "the message is empty" in done.stdout
