"""A small MCP server that reports what it saw of its client, for the client's tests.

python witness_server.py [--fail-after-stderr]

Its ``client_info`` tool returns the ``clientInfo`` the client sent; with
``WITNESS_PID_FILE`` set, it appends its process id to that file as it starts. Its
tool names are the ones a test of renaming needs: ``files.read`` next to a
``files_read`` of its own (listed in the order ``TOOL_ORDER`` gives, ``dotted-first``
or ``plain-first``). With ``--fail-after-stderr`` it writes 31 lines on stderr and
exits before serving, as a server whose start fails does.
"""

from __future__ import annotations

import os
import sys

if "--fail-after-stderr" in sys.argv:
    for n in range(1, 31):
        print(f"witness: starting, step {n}", file=sys.stderr)
    print("witness: cannot open the database: permission denied", file=sys.stderr)
    sys.exit(3)

from fastmcp import Context, FastMCP

if os.environ.get("WITNESS_PID_FILE"):
    with open(os.environ["WITNESS_PID_FILE"], "a") as pids:
        print(os.getpid(), file=pids)

server = FastMCP("witness")


@server.tool
def client_info(ctx: Context) -> dict:
    """The clientInfo the client sent when it connected."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return info.model_dump(mode="json", exclude_none=True) if info is not None else {}


def _read_dotted(path: str) -> str:
    return f"dotted {path}"


def _read_plain(path: str) -> str:
    return f"plain {path}"


def _pid() -> int:
    return os.getpid()


_TOOLS = {
    "files.read": _read_dotted,
    "files_read": _read_plain,
}
order = list(_TOOLS)
if os.environ.get("TOOL_ORDER") == "plain-first":
    order.reverse()
for name in order:
    server.tool(_TOOLS[name], name=name, description=f"The {name} tool.")
server.tool(_pid, name="pid", description="The server's process id.")


if __name__ == "__main__":
    server.run(show_banner=False, log_level="warning")
