{%- set P = cookiecutter.__class_prefix -%}
"""The {{ cookiecutter.tool_name }} tool's executor: the logic. Replace the example with yours.

It imports the types only, never the tool module (which imports it).
"""

from __future__ import annotations

import threading

from toolplug import Observation, TextContent, ToolExecutor

from {{ cookiecutter.package_name }}.types import {{ P }}Action, {{ P }}Observation


class {{ P }}Executor(ToolExecutor[{{ P }}Action, {{ P }}Observation]):
    """Counts words and keeps a running total for its session.

    One executor serves one host session; the host calls :meth:`close` once at the end.
    Calls may come from several threads, so the state is guarded by a lock.
    """

    def __init__(self, *, max_chars: int) -> None:
        self.max_chars = max_chars
        self.total_words = 0
        self.closed = False
        self._lock = threading.Lock()

    def __call__(self, action: {{ P }}Action) -> {{ P }}Observation | Observation:
        if len(action.text) > self.max_chars:
            # Expected failures are error observations that say what to do instead.
            return Observation.error(
                f"The text has {len(action.text)} characters; this tool takes at most "
                f"{self.max_chars}. Send a shorter text."
            )
        words = len(action.text.split())
        with self._lock:
            if self.closed:
                raise RuntimeError("this session has ended; the tool is closed")
            self.total_words += words
            total = self.total_words
        return {{ P }}Observation(
            content=[TextContent(text=f"{words} words, {len(action.text)} characters.")],
            words=words,
            characters=len(action.text),
            total_words=total,
        )

    def close(self) -> None:
        """Release what the session holds (here only the count; often a process or a file)."""
        with self._lock:
            self.closed = True
            self.total_words = 0
