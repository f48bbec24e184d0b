"""How serving stops: SIGTERM as SIGINT, with every session's tools closed first.

Docker, systemd and process supervisors stop a server with SIGTERM, a terminal with
SIGINT. Either one ends serving (over HTTP, calls in flight get :data:`SHUTDOWN_GRACE`
seconds to finish, then are cancelled), the serving coroutine closes every session's
tools (bash sessions and their background jobs end, temp files go), and then the
process ends by that signal, as it would have without a handler (exit status 130 or
143 in a shell), which is also what uvicorn does after its own graceful shutdown.
Without this, SIGTERM ends the process at once and the tools' processes live on.

A client that goes away (killed mid-call, say) is an ordinary end too: over stdio the
next answer meets a closed pipe, and :func:`client_went_away` tells that apart from a
failure, so the server closes the tools and ends without a traceback.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

#: Seconds calls in flight may take to finish once the server is asked to stop.
SHUTDOWN_GRACE = 5

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_on_signals(stop: Callable[[], None], *, enabled: bool = True) -> Iterator[list[int]]:
    """Call ``stop()`` on SIGINT or SIGTERM while in the block; yields the signals seen.

    ``stop`` must be idempotent: every signal calls it. Nothing is installed when not
    ``enabled``, or where the running loop cannot handle signals (a thread other than
    the main one, or Windows): the host then stops serving by cancelling the task.
    """
    received: list[int] = []

    def on_signal(sig: int) -> None:
        received.append(sig)
        stop()

    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS if enabled else ():
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)
    try:
        yield received
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


def end_by_signal(sig: int) -> NoReturn:
    """End the process by ``sig``'s default action, as if it had never been caught."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    signal.signal(sig, signal.SIG_DFL)
    signal.raise_signal(sig)
    raise SystemExit(128 + sig)  # not reached: both signals' default is to terminate


#: What writing to, or reading from, a client that has gone raises.
_GONE = (BrokenPipeError, ConnectionResetError, EOFError)


def client_went_away(exc: BaseException) -> bool:
    """Whether ``exc`` (or every exception of a group) says the client has gone."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple) and inner:
        return all(client_went_away(e) for e in inner)
    return isinstance(exc, _GONE) or type(exc).__name__ in {
        "BrokenResourceError",  # anyio's, for a stream whose other end closed
        "ClosedResourceError",
    }


def detach_stdout() -> None:
    """Point stdout at ``/dev/null``: its reader has gone, and the interpreter's last
    flush would otherwise print a ``BrokenPipeError`` on the way out."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
