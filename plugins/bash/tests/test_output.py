"""Output handling: huge output bounded in memory, secrets across reads, rendering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import MakeBash
from toolplug.testing import validate_observation_exports
from toolplug_bash.output import OutputCapture, SecretMasker, render


def _peak_rss_growth_kb(action: Any) -> tuple[Any, int]:
    """Run ``action`` and return its result and the host's peak RSS growth in kB."""

    def status(field: str) -> int:
        with open("/proc/self/status") as f:
            line = next(x for x in f if x.startswith(field))
        return int(line.split()[1])

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak (VmHWM) to the current RSS
    before = status("VmRSS:")
    result = action()
    return result, status("VmHWM:") - before


#: The host's peak memory may grow by at most this while the output streams ...
GROWTH_BOUND_KB = 50 * 1024
#: ... and the output is five times that: a capture that kept what it read could not
#: stay under the bound (1 GiB proved no more, in four times the time).
STREAMED = "250M"


def test_output_five_times_the_memory_bound_streams(make_bash: MakeBash) -> None:
    bash = make_bash(max_output=2000, max_saved_output=1 << 20)
    command = f"head -c {STREAMED} /dev/zero | tr '\\0' a; echo; echo THE-END"
    observation, growth_kb = _peak_rss_growth_kb(
        lambda: bash.call({"command": command, "timeout": 120})
    )
    assert not observation.is_error, observation.text
    assert observation.exit_code == 0 and not observation.running
    assert observation.output.startswith("a" * 900)
    assert observation.output.rstrip().endswith("THE-END")
    assert "bytes left out" in observation.output
    assert len(observation.text) < 3000
    assert growth_kb < GROWTH_BOUND_KB, f"peak RSS grew by {growth_kb} kB"
    saved = Path(observation.full_output_path)
    assert saved.stat().st_size == 1 << 20
    assert f"the first {1 << 20} bytes" in observation.text
    validate_observation_exports(observation)


def test_truncated_output_is_saved_whole(make_bash: MakeBash) -> None:
    bash = make_bash(max_output=1000)
    observation = bash.call({"command": "seq 1 200000"})
    assert observation.exit_code == 0
    lines = observation.output.splitlines()
    assert lines[0] == "1" and lines[-1] == "200000"
    saved = Path(observation.full_output_path)
    assert str(saved) in observation.text
    numbers = saved.read_text().split()
    assert numbers == [str(i) for i in range(1, 200001)]
    # The model pages through it with the same shell.
    page = bash.call({"command": f"sed -n '100000,100002p' {saved}"})
    assert page.output == "100000\n100001\n100002\n"


def test_secret_split_across_reads_is_masked(tmp_path: Path) -> None:
    masker = SecretMasker(["hunter2", "abc"])
    stream = b"xx hunter2 yy hunt" + b"er2 abcabc hunter"
    pieces = [stream[i : i + 3] for i in range(0, len(stream), 3)]
    out = b"".join(masker.feed(p) for p in pieces) + masker.flush()
    assert out == b"xx ******** yy ******** **************** hunter"


def test_secret_in_huge_output_is_masked_in_the_saved_file(make_bash: MakeBash) -> None:
    bash = make_bash(max_output=200, secrets={"TOKEN": "tok-XYZ-42"})
    observation = bash.call({"command": "for i in $(seq 3000); do echo line $i tok-XYZ-42; done"})
    saved = Path(observation.full_output_path).read_text()
    assert "tok-XYZ-42" not in saved and "tok-XYZ-42" not in observation.text
    assert saved.count("********") == 3000


def test_capture_keeps_head_and_tail(tmp_path: Path) -> None:
    capture = OutputCapture(10, tmp_path / "out.log", 1000)
    for i in range(100):
        capture.write(f"{i:03d}".encode())
    capture.finish()
    head, tail, left_out = capture.view()
    assert head == b"00000" and tail == b"98099"
    assert left_out == 300 - 10
    assert (tmp_path / "out.log").read_bytes() == b"".join(f"{i:03d}".encode() for i in range(100))


def test_render_terminal_text() -> None:
    assert render(b"a\r\nb\r\n") == "a\nb\n"
    assert render(b"50%\r100%\r\n") == "100%\n"
    assert render(b"long line\rshort\n") == "shortline\n"
    assert render(b"ab\x08c\n") == "ac\n"
    assert render(b"\x1b[1;32mok\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n") == "ok link\n"
    assert render(b"\xe2\x82") == "\ufffd"
