"""The audit log: its lines, masked secrets, a log that cannot be written, and exit."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import refused
from toolplug_policy.audit import MASK, audit_log, masked

POLICY = """
default = "deny"
audit_log = "audit.jsonl"

[[rules]]
decision = "allow"
tool = "bash"
command = ["echo *", "false"]

[[rules]]
decision = "ask"
tool = "bash"
command = ["touch *"]

[[rules]]
decision = "allow"
tool = "fetch"
"""


def raw_lines(path: Path) -> list[dict[str, Any]]:
    """The log's lines as written, once everything queued is written."""
    assert audit_log(path).flush(timeout=30)
    return [json.loads(line) for line in path.read_text().splitlines()]


def lines(path: Path) -> list[dict[str, Any]]:
    """One entry per call, in the order the calls came: a ``refused`` line, or a
    ``start`` line completed by its ``end`` line (checked to be there, once each)."""
    calls: dict[str, dict[str, Any]] = {}
    for line in raw_lines(path):
        if line["phase"] == "end":
            started = calls[line["call"]]
            assert started["phase"] == "start" and "duration" not in started, line
            started.update(duration=line["duration"], is_error=line["is_error"])
        else:
            assert line["call"] not in calls, line
            calls[line["call"]] = line
    entries = sorted(calls.values(), key=lambda e: (e["time"], int(e["call"].split("-")[1])))
    assert all("duration" in e for e in entries), entries
    return entries


def test_one_line_per_call(toolset, write_policy, tmp_path: Path) -> None:
    policy = write_policy(POLICY)
    tools = toolset(["bash"], policy, lambda tool, action, rule: action.command == "touch yes")
    tools.call("bash", {"command": "echo hi"})
    tools.call("bash", {"command": "echo typed", "is_input": True})  # nothing runs: an error
    tools.call("bash", {"command": "rm -rf /"})
    tools.call("bash", {"command": "touch yes"})
    tools.call("bash", {"command": "touch no"})
    entries = lines(tmp_path / "audit.jsonl")
    assert [e["arguments"]["command"] for e in entries] == [
        "echo hi",
        "echo typed",
        "rm -rf /",
        "touch yes",
        "touch no",
    ]
    summary = [
        (e["decision"], e["rule"], e["is_error"], e.get("approved"), e.get("approved_by"))
        for e in entries
    ]
    assert summary == [
        ("allow", [1], False, None, None),
        ("allow", [1], True, None, None),  # allowed, and the tool said no
        ("deny", [], True, None, None),
        ("ask", [2], False, True, "approver"),
        ("ask", [2], True, False, "approver"),
    ]
    for entry in entries:
        assert entry["tool"] == "bash"
        assert entry["time"].endswith("+00:00") and entry["time"][:2] == "20"
        assert isinstance(entry["duration"], float) and entry["duration"] >= 0
        assert set(entry) >= {"time", "tool", "arguments", "decision", "rule", "duration"}


def test_an_allow_by_several_rules_names_them_all(toolset, write_policy, tmp_path) -> None:
    policy = write_policy(
        """
        default = "deny"
        audit_log = "audit.jsonl"
        [[rules]]
        decision = "allow"
        command = ["echo *"]
        [[rules]]
        decision = "allow"
        command = ["true"]
        """
    )
    toolset(["bash"], policy).call("bash", {"command": "true && echo hi"})
    [entry] = lines(tmp_path / "audit.jsonl")
    assert entry["decision"] == "allow" and entry["rule"] == [1, 2]


def test_secrets_are_masked(function_toolset, write_policy, tmp_path: Path) -> None:
    tools = function_toolset(write_policy(POLICY))
    headers = {"Authorization": "Bearer s3cr3t", "X-Api-Key": "k3y", "Accept": "text/html"}
    assert not tools.call("fetch", {"url": "https://example.org/", "headers": headers}).is_error
    [entry] = lines(tmp_path / "audit.jsonl")
    assert entry["arguments"] == {
        "url": "https://example.org/",
        "headers": {"Authorization": MASK, "X-Api-Key": MASK, "Accept": "text/html"},
    }
    assert "s3cr3t" not in (tmp_path / "audit.jsonl").read_text()


def test_masking_at_any_depth_and_long_values_cut() -> None:
    data = {
        "password": "p",
        "nested": [{"github_token": "t", "client_secret": {"x": 1}, "name": "n"}],
        "SESSION_ID": 7,
        "author": "me",
        "text": "x" * 5000,
    }
    out = masked(data)
    assert out["password"] == MASK and out["SESSION_ID"] == MASK
    assert out["nested"] == [{"github_token": MASK, "client_secret": MASK, "name": "n"}]
    assert out["author"] == "me"
    assert out["text"].startswith("x" * 2000) and out["text"].endswith("(3,000 more characters)")


def test_a_log_that_cannot_be_written_is_reported_once(
    toolset, write_policy, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    policy = write_policy(POLICY.replace('"audit.jsonl"', '"missing/dir/audit.jsonl"'))
    tools = toolset(["bash"], policy)
    with caplog.at_level(logging.WARNING, logger="toolplug"):
        for _ in range(3):
            assert not tools.call("bash", {"command": "echo hi"}).is_error
        assert audit_log(tmp_path / "missing/dir/audit.jsonl").flush(timeout=30)
    warnings = [r.getMessage() for r in caplog.records if "audit log" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "missing/dir/audit.jsonl cannot be written" in warnings[0]
    assert "No such file or directory" in warnings[0]


def test_a_stuck_log_never_holds_a_call_up(toolset, write_policy, tmp_path: Path) -> None:
    # Opening a FIFO for writing waits for a reader: the writer thread waits, calls go on.
    fifo = tmp_path / "audit.jsonl"
    os.mkfifo(fifo)
    tools = toolset(["bash"], write_policy(POLICY))
    for i in range(5):
        assert tools.call("bash", {"command": f"echo {i}"}).text.startswith(f"{i}")
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert audit_log(fifo).flush(timeout=30)
    audit_log(fifo).close()
    reader.join(30)
    written = [json.loads(line) for line in received[0].splitlines()]
    commands = [e["arguments"]["command"] for e in written if e["phase"] == "start"]
    assert commands == [f"echo {i}" for i in range(5)]
    assert [e["phase"] for e in written].count("end") == 5


def test_queued_lines_are_written_at_exit(write_policy, workspace: Path, tmp_path: Path) -> None:
    policy = write_policy(POLICY)
    script = textwrap.dedent(
        """
        import sys
        from toolplug import Toolset
        tools = Toolset.load(["bash"], workspace=sys.argv[1], policy=sys.argv[2])
        for i in range(50):
            tools.call("bash", {"command": f"echo {i}"})
        tools.close()
        """
    )
    subprocess.run([sys.executable, "-c", script, str(workspace), str(policy)], check=True)
    written = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [e["arguments"]["command"] for e in written if e["phase"] == "start"] == [
        f"echo {i}" for i in range(50)
    ]
    assert [e["phase"] for e in written].count("end") == 50


def test_names_that_are_not_utf8_keep_the_log_valid(toolset, write_policy, tmp_path) -> None:
    tools = toolset(["file_editor"], write_policy(POLICY))
    name = os.fsdecode(b"caf\xe9.txt")
    refused(tools.call("file_editor", {"command": "view", "path": name}))
    raw = (
        (tmp_path / "audit.jsonl").read_bytes()
        if audit_log(tmp_path / "audit.jsonl").flush(30)
        else b""
    )
    [entry] = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    assert entry["arguments"]["path"] == name


def test_two_toolsets_share_one_writer(toolset, write_policy, tmp_path: Path) -> None:
    policy = write_policy(POLICY)
    first, second = toolset(["bash"], policy), toolset(["bash"], policy)
    first.call("bash", {"command": "echo 1"})
    second.call("bash", {"command": "echo 2"})
    first.call("bash", {"command": "echo 3"})
    commands = [e["arguments"]["command"] for e in lines(tmp_path / "audit.jsonl")]
    assert commands == ["echo 1", "echo 2", "echo 3"]


async def test_the_async_path_logs_too(toolset, write_policy, tmp_path: Path) -> None:
    async def approver(tool: Any, action: Any, rule: Any) -> bool:
        return True

    tools = toolset(["bash"], write_policy(POLICY), approver)
    assert not (await tools.acall("bash", {"command": "echo hi"})).is_error
    assert not (await tools.acall("bash", {"command": "touch made"})).is_error
    refused(await tools.acall("bash", {"command": "rm made"}))
    entries = lines(tmp_path / "audit.jsonl")
    summary = [(e["decision"], e["rule"], e.get("approved")) for e in entries]
    assert summary == [("allow", [1], None), ("ask", [2], True), ("deny", [], None)]


def test_a_call_that_kills_its_host_leaves_its_start_line(write_policy, workspace, tmp_path):
    """The host is killed (SIGKILL, no exit handlers) by the very call it makes: the
    decision was written before the call ran, so the log has it."""
    policy = write_policy(POLICY.replace('"echo *", "false"', '"echo *", "false", "kill *"'))
    script = textwrap.dedent(
        """
        import os, sys
        from toolplug import Toolset
        tools = Toolset.load(["bash"], workspace=sys.argv[1], policy=sys.argv[2])
        tools.call("bash", {"command": "echo before"})
        tools.call("bash", {"command": f"kill -9 {os.getpid()}"})
        print("survived")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(workspace), str(policy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -9 and "survived" not in done.stdout, done
    written = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    starts = [e for e in written if e["phase"] == "start"]
    assert [e["arguments"]["command"] for e in starts][-1].startswith("kill -9 ")
    assert starts[-1]["decision"] == "allow" and starts[-1]["rule"] == [1]
    ends = {e["call"] for e in written if e["phase"] == "end"}
    assert starts[-1]["call"] not in ends  # it never ended: the reader can tell


SECRET_NAMES = [
    "password",
    "pass",
    "passwd",
    "pw",
    "pwd",
    "pin",
    "otp",
    "jwt",
    "key",
    "api_key",
    "ssh_key",
    "X-Api-Key",
    "session",
    "sessionId",
    "signature",
    "github_token",
    "accessToken",
    "clientsecret",
    "Authorization",
    "cookie",
    "auth",
    "credentials",
]
PLAIN_NAMES = ["keyboard", "monkey", "passage", "spinner", "max_tokens", "author", "path"]


def test_secrets_are_masked_by_name() -> None:
    out = masked({name: "v4lue" for name in SECRET_NAMES + PLAIN_NAMES})
    assert [name for name in SECRET_NAMES if out[name] != MASK] == []
    assert [name for name in PLAIN_NAMES if out[name] != "v4lue"] == []


def test_secrets_are_masked_by_value() -> None:
    data = {
        "command": (
            "curl -H 'Authorization: Bearer abc.def-123' https://ada:hunter2@example.org/x "
            "&& GITHUB_TOKEN=ghtok123 gh pr list --password=pw99 && echo PATH=/bin"
        ),
        "url": "https://ghp_ABCDEFGHIJKLMNOPQRSTUV0123456789@github.com/o/r.git",
        "headers": [["Authorization", "Bearer s3cr3t"], ["Accept", "text/html"]],
        "entries": [{"name": "X-Api-Key", "value": "k3y"}, {"name": "Accept", "value": "*/*"}],
        "env": ["API_KEY=abc123", "DEBUG=1", "DB_PASSWORD='p w'"],
        "note": "a JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl here",
        "basic": "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    }
    out = masked(data)
    text = json.dumps(out)
    for secret in ["abc.def-123", "hunter2", "ghtok123", "pw99", "ghp_", "s3cr3t", "k3y"]:
        assert secret not in text, secret
    for secret in ["abc123", "p w", "eyJhbGci", "QWxhZGRp"]:
        assert secret not in text, secret
    assert out["headers"] == [["Authorization", MASK], ["Accept", "text/html"]]
    assert out["entries"] == [
        {"name": "X-Api-Key", "value": MASK},
        {"name": "Accept", "value": "*/*"},
    ]
    assert out["env"] == [f"API_KEY={MASK}", "DEBUG=1", f"DB_PASSWORD={MASK}"]
    assert "https://ada:***@example.org/x" in out["command"]
    assert f"GITHUB_TOKEN={MASK} gh pr list --password={MASK}" in out["command"]
    assert "echo PATH=/bin" in out["command"] and out["url"] == "https://***@github.com/o/r.git"


def test_huge_keys_values_and_containers_are_cut() -> None:
    out = masked({"k" * 5000: "v", "list": list(range(5000)), "text": "x" * 10**6})
    [long_key] = [key for key in out if key.startswith("k")]
    assert len(long_key) < 300 and long_key.endswith("(4,800 more characters)")
    assert out["list"][:3] == [0, 1, 2] and out["list"][-1] == "... (4,000 more items)"
    assert len(out["text"]) < 2100 and out["text"].endswith("(998,000 more characters)")
    wide = masked({f"k{i}": i for i in range(3000)})
    assert len(wide) == 1001 and wide["..."] == "2,000 more keys"


def test_a_secret_cut_in_two_is_still_masked() -> None:
    text = "x" * 1990 + " Bearer " + "s" * 100
    assert "ssssss" not in masked(text)


def test_one_entry_is_one_line_for_every_reader(toolset, write_policy, tmp_path) -> None:
    tools = toolset(["bash"], write_policy(POLICY))
    command = "echo 'a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\x1dh\x1ei\rj'"
    assert not tools.call("bash", {"command": command}).is_error
    assert audit_log(tmp_path / "audit.jsonl").flush(timeout=30)
    text = (tmp_path / "audit.jsonl").read_text(encoding="utf-8")
    assert len(text.splitlines()) == 2  # start and end, whatever splitlines splits on
    [start, end] = [json.loads(line) for line in text.splitlines()]
    assert start["arguments"]["command"] == command and end["call"] == start["call"]
