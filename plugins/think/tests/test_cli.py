"""The installed distribution, seen through the ``toolplug`` command line."""

from __future__ import annotations

import json

from toolplug.testing import run_toolplug


def test_toolplug_plugins_lists_think_with_its_version() -> None:
    done = run_toolplug("plugins", "--json")

    assert done.returncode == 0, done.stderr
    think = next(p for p in json.loads(done.stdout) if p["name"] == "think")
    assert think["distribution"] == "toolplug-think"
    assert think["version"] == "0.2.0"
    assert think["enabled"] is True


def test_toolplug_call_think_answers() -> None:
    done = run_toolplug("call", "think", '{"thought": "read before editing"}')

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Your thought has been logged."


def test_toolplug_call_think_json_carries_the_thought() -> None:
    done = run_toolplug("call", "think", '{"thought": "typed"}', "--json", plugins="think")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["isError"] is False
    assert result["structuredContent"] == {
        "text": "Your thought has been logged.",
        "thought": "typed",
    }


def test_toolplug_call_with_bad_arguments_exits_1_with_the_reason() -> None:
    done = run_toolplug("call", "think", '{"thought": null}', plugins="think")

    assert done.returncode == 1
    assert "thought" in done.stdout


def test_toolplug_call_with_a_param_is_a_usage_error() -> None:
    done = run_toolplug("call", "think", '{"thought": "x"}', "--param", "depth=2", plugins="think")

    assert done.returncode == 2
    assert "takes no params" in done.stderr


def test_think_alone_is_enabled_by_name() -> None:
    done = run_toolplug("tools", "--json", plugins="think")

    assert done.returncode == 0, done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)] == ["think"]
