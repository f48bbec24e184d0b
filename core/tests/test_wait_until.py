"""toolplug.testing.wait_until: a bounded wait for what happens on its own."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from toolplug.testing import wait_until


def test_it_returns_the_predicates_value_once_true(tmp_path: Path) -> None:
    target = tmp_path / "done.txt"
    writer = threading.Timer(0.2, target.write_text, args=("finished",))
    writer.start()
    try:
        text = wait_until(lambda: target.exists() and target.read_text(), what="done.txt")
    finally:
        writer.cancel()
    assert text == "finished"


def test_a_true_predicate_is_called_once() -> None:
    calls: list[int] = []

    def ready() -> int:
        calls.append(1)
        return 7

    assert wait_until(ready, timeout=0) == 7
    assert calls == [1]


def test_expiry_fails_naming_what_was_awaited() -> None:
    calls: list[int] = []

    def never() -> bool:
        calls.append(1)
        return False

    with pytest.raises(AssertionError, match=r"still waiting for the server's file after 0.2 s"):
        wait_until(never, timeout=0.2, interval=0.01, what="the server's file")
    # called at once, and again (at the latest at the deadline) before it gives up
    assert len(calls) >= 2


def test_without_what_the_predicates_name_is_given() -> None:
    def the_port_is_open() -> bool:
        return False

    with pytest.raises(AssertionError, match="the_port_is_open"):
        wait_until(the_port_is_open, timeout=0)


def test_a_predicate_that_raises_is_not_retried() -> None:
    def broken() -> bool:
        raise FileNotFoundError("no such file")

    with pytest.raises(FileNotFoundError):
        wait_until(broken, timeout=5)
