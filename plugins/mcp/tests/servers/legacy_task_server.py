"""A bare MCP server of the 2025-11-25 revision whose tools declare
``execution.taskSupport``, written on plain JSON-RPC over stdio (no SDK), for the
client's task tests.

python legacy_task_server.py [--tasks]

``report`` is ``required`` (called without task augmentation it fails with
``-32601``, as such servers answer), ``summary`` is ``optional``, ``echo`` says
nothing. Without ``--tasks`` the server declares no ``tasks`` capability. With it,
the server runs ``report`` as a task: the task works for ``seconds`` (an argument),
``tasks/get`` reports it, ``tasks/result`` gives the report, ``tasks/cancel`` stops
it; each of these is appended to the file named by ``TASK_EVENTS``. When
``TASK_HOLD`` names a file, the answer to a call run as a task is held back until
that file exists (30 s at most).
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime, timezone

PROTOCOL = "2025-11-25"
SERVES_TASKS = "--tasks" in sys.argv
TOOLS = [
    {
        "name": "report",
        "description": "A long report; runs only as a task.",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "summary",
        "description": "A short summary; may run as a task.",
        "inputSchema": {"type": "object", "properties": {}},
        "execution": {"taskSupport": "optional"},
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
]
tasks: dict[str, dict] = {}  # task id -> {"ends": monotonic time, "status", "seconds"}


def event(text: str) -> None:
    if os.environ.get("TASK_EVENTS"):
        with open(os.environ["TASK_EVENTS"], "a") as events:
            print(text, file=events)


def hold_answer() -> None:
    """Wait (30 s at most) until the file named by ``TASK_HOLD`` exists, if it names one."""
    hold = os.environ.get("TASK_HOLD")
    deadline = time.monotonic() + 30
    while hold and not os.path.exists(hold) and time.monotonic() < deadline:
        time.sleep(0.02)


def task_view(task_id: str) -> dict:
    task = tasks[task_id]
    if task["status"] == "working" and time.monotonic() >= task["ends"]:
        task["status"] = "completed"
    now = datetime.now(timezone.utc).isoformat()
    return {
        "taskId": task_id,
        "status": task["status"],
        "createdAt": now,
        "lastUpdatedAt": now,
        "ttl": 60000,
        "pollInterval": 100,
    }


def answer(request: dict) -> dict:
    method, params = request["method"], request.get("params") or {}
    if method == "initialize":
        capabilities: dict = {"tools": {}}
        if SERVES_TASKS:
            capabilities["tasks"] = {"cancel": {}, "requests": {"tools": {"call": {}}}}
        return {
            "protocolVersion": PROTOCOL,
            "capabilities": capabilities,
            "serverInfo": {"name": "legacy-tasks", "version": "1.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "report" and "task" not in params:
            raise LookupError("Tool 'report' requires task augmentation")
        if "task" in params and SERVES_TASKS:
            task_id = f"t{len(tasks) + 1}"
            seconds = float(arguments.get("seconds", 0))
            tasks[task_id] = {
                "ends": time.monotonic() + seconds,
                "status": "working",
                "seconds": seconds,
            }
            event(f"created {task_id}")
            hold_answer()
            return {"task": task_view(task_id)}
        return {"content": [{"type": "text", "text": arguments.get("text", f"the {name}")}]}
    if method == "tasks/get":
        return task_view(params["taskId"])
    if method == "tasks/result":
        view = task_view(params["taskId"])
        event(f"result {params['taskId']} {view['status']}")
        seconds = tasks[params["taskId"]]["seconds"]
        return {"content": [{"type": "text", "text": f"the report, after {seconds:g} s"}]}
    if method == "tasks/cancel":
        tasks[params["taskId"]]["status"] = "cancelled"
        event(f"cancelled {params['taskId']}")
        return task_view(params["taskId"])
    if method == "ping":
        return {}
    raise LookupError(f"Method not found: {method}")


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue  # a notification, or an answer
    try:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}
    except LookupError as exc:
        error = {"code": -32601, "message": str(exc)}
        reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
    print(json.dumps(reply), flush=True)
