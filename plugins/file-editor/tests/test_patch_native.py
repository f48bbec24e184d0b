"""apply_patch in the OpenAI Responses API's native form: ``{"type": "apply_patch"}``.

Round trips through ``Toolset.export("responses", native=True)`` and
``Toolset.dispatch``: the calls are built with the openai SDK's own models and dumped as
the API sends them, the files change on disk, and every answer validates strictly
against the SDK's input item types.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toolplug_file_editor
from openai.types.responses import ResponseApplyPatchToolCall
from openai.types.responses.response_apply_patch_tool_call import (
    OperationCreateFile,
    OperationDeleteFile,
    OperationUpdateFile,
)
from openai.types.responses.response_input_item_param import ApplyPatchCallOutput
from pydantic import TypeAdapter
from toolplug import Observation, Tool, ToolContext, Toolset, hookimpl
from toolplug.testing import registry_from, validate_observation_exports, validate_tool_exports
from toolplug_file_editor.patch_forms import ApplyPatchForm

Operation = OperationCreateFile | OperationUpdateFile | OperationDeleteFile


class Guard:
    """A call guard as toolplug-policy is one: it sees each action's paths, and
    refuses any call that touches ``secret.txt``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any) -> Observation | None:
        paths = tuple(action.touched_paths())
        self.seen.append(paths)
        if any(path.endswith("secret.txt") for path in paths):
            return Observation.error("Refused by the guard: secret.txt is off limits.")
        return None


def load(workspace: Path, *plugins: Any, **params: Any) -> Toolset:
    registry = registry_from(toolplug_file_editor, *plugins)
    tools = registry.resolve(Tool("apply_patch", params), ToolContext(workspace=workspace))
    return Toolset(tools)


@pytest.fixture
def guard() -> Guard:
    return Guard()


@pytest.fixture
def toolset(workspace: Path, guard: Guard) -> Iterator[Toolset]:
    with load(workspace, guard) as tools:
        assert tools.export("responses", native=True) == [{"type": "apply_patch"}]
        yield tools


def call(operation: Operation, call_id: str = "call_1") -> dict[str, Any]:
    """An apply_patch_call item as the SDK types it, dumped as the API sends it."""
    item = ResponseApplyPatchToolCall(
        id=f"apc_{call_id}",
        call_id=call_id,
        operation=operation,
        status="completed",
        type="apply_patch_call",
    )
    return item.model_dump(mode="json", exclude_none=True)


def valid(result: Any) -> dict[str, Any]:
    """``result`` after strict validation against the SDK's input item type."""
    TypeAdapter(ApplyPatchCallOutput).validate_python(result, strict=True)
    assert isinstance(result, dict)
    return result


def failed(result: Any) -> str:
    result = valid(result)
    assert result["status"] == "failed", result
    return str(result["output"])


def test_export_validates_and_replaces_the_function(workspace: Path) -> None:
    with load(workspace) as tools:
        validate_tool_exports(tools["apply_patch"])
        [function] = tools.export("responses")
        assert function["type"] == "function" and function["name"] == "apply_patch"
        # other formats keep the function declaration
        assert tools.export("anthropic", native=True)[0]["name"] == "apply_patch"
    validate_observation_exports(Observation.from_text("ok"), native_forms=[ApplyPatchForm()])
    validate_observation_exports(Observation.error("no"), native_forms=[ApplyPatchForm()])


def test_create_update_delete_round_trip(toolset: Toolset, workspace: Path, guard: Guard) -> None:
    (workspace / "app.py").write_text("def greet():\n    print('hi')\n\nold = 1\n")
    (workspace / "gone.txt").write_text("bye\n")
    response = {
        "id": "resp_1",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            call(
                OperationCreateFile(type="create_file", path="pkg/new.py", diff="+a = 1\n+b = 2\n"),
                "c1",
            ),
            call(
                OperationUpdateFile(
                    type="update_file",
                    path="app.py",
                    diff="@@ def greet():\n-    print('hi')\n+    print('hello')\n"
                    "@@\n-old = 1\n+new = 2\n",
                ),
                "c2",
            ),
            call(OperationDeleteFile(type="delete_file", path="gone.txt"), "c3"),
        ],
    }
    results = [valid(r) for r in toolset.dispatch(response)]
    assert [r["call_id"] for r in results] == ["c1", "c2", "c3"]
    assert [r["status"] for r in results] == ["completed"] * 3, results
    assert (workspace / "pkg/new.py").read_text() == "a = 1\nb = 2\n"
    assert (workspace / "app.py").read_text() == "def greet():\n    print('hello')\n\nnew = 2\n"
    assert not (workspace / "gone.txt").exists()
    assert "A pkg/new.py" in results[0]["output"] and "M app.py" in results[1]["output"]
    assert "D gone.txt" in results[2]["output"]
    assert guard.seen == [("pkg/new.py",), ("app.py",), ("gone.txt",)]


def test_the_guard_sees_and_refuses_the_path(toolset: Toolset, workspace: Path) -> None:
    create = OperationCreateFile(type="create_file", path="secret.txt", diff="+x\n")
    assert "Refused by the guard" in failed(toolset.dispatch([call(create)])[0])
    assert not (workspace / "secret.txt").exists()


def test_a_hunk_that_does_not_apply(toolset: Toolset, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo\nthree\n")
    update = OperationUpdateFile(
        type="update_file", path="a.txt", diff="@@\n one\n-TWO\n+2\n three\n"
    )
    message = failed(toolset.dispatch([call(update)])[0])
    assert "a.txt" in message and "hunk 1" in message and "diff line 1" in message, message
    assert "TWO" in message, message  # the line the file does not have
    assert "patch line" not in message  # lines are counted in the model's own diff
    assert (workspace / "a.txt").read_text() == "one\ntwo\nthree\n"


def test_a_path_outside_the_workspace(toolset: Toolset, workspace: Path) -> None:
    create = OperationCreateFile(type="create_file", path="../escape.txt", diff="+x\n")
    message = failed(toolset.dispatch([call(create)])[0])
    assert "outside the workspace" in message
    assert not (workspace.parent / "escape.txt").exists()


def test_a_delete_of_a_missing_file(toolset: Toolset) -> None:
    delete = OperationDeleteFile(type="delete_file", path="nothing.txt")
    message = failed(toolset.dispatch([call(delete)])[0])
    assert "nothing.txt does not exist" in message


def test_an_update_of_a_missing_file(toolset: Toolset) -> None:
    update = OperationUpdateFile(type="update_file", path="nothing.txt", diff="@@\n-a\n+b\n")
    assert "nothing.txt does not exist" in failed(toolset.dispatch([call(update)])[0])


def test_a_diff_that_smuggles_in_another_file_is_refused(
    toolset: Toolset, workspace: Path, guard: Guard
) -> None:
    """One operation is one file: a diff line that opens another section is refused,
    before the tool runs, so nothing is written anywhere."""
    (workspace / "a.txt").write_text("a\n")
    update = OperationUpdateFile(
        type="update_file", path="a.txt", diff="@@\n-a\n+b\n*** Add File: other.txt\n+x\n"
    )
    message = failed(toolset.dispatch([call(update)])[0])
    assert "holds more than that file's changes" in message
    assert not (workspace / "other.txt").exists() and guard.seen == []
    moved = OperationUpdateFile(type="update_file", path="a.txt", diff="*** Move to: b.txt\n")
    assert "cannot move a.txt" in failed(toolset.dispatch([call(moved)])[0])
    assert (workspace / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        ({"type": "rename_file", "path": "a"}, "create_file, update_file or delete_file"),
        ({"type": "create_file", "diff": "+x"}, "needs a `path`"),
        ({"type": "create_file", "path": "a\n*** Delete File: b", "diff": "+x"}, "one line"),
        ({"type": "update_file", "path": "a.txt"}, "needs a `diff`"),
        ({"type": "create_file", "path": "n.txt", "diff": "x\n"}, "diff line 1"),
        ("create", "needs an `operation` object"),
    ],
)
def test_bad_operations_are_failed_outputs(toolset: Toolset, operation: Any, expected: str) -> None:
    item = {
        "type": "apply_patch_call",
        "call_id": "c9",
        "status": "completed",
        "operation": operation,
    }
    message = failed(toolset.dispatch([item])[0])
    assert expected in message, message


def test_calls_in_a_plain_mapping_with_native_true(workspace: Path) -> None:
    """A host that exported elsewhere says ``native=True`` when it dispatches."""
    with load(workspace) as tools:
        create = OperationCreateFile(type="create_file", path="n.txt", diff="+n\n")
        [result] = tools.dispatch([call(create)], native=True)
    assert valid(result)["status"] == "completed"
    assert (workspace / "n.txt").read_text() == "n\n"


def test_native_patch_beside_file_editor_functions_and_undo(workspace: Path) -> None:
    """apply_patch native and file_editor as a function in one export: each call goes
    its own way, and the editor's undo_edit reverts what the native call did."""
    (workspace / "a.txt").write_text("one\n")
    registry = registry_from(toolplug_file_editor)
    context = ToolContext(workspace=workspace)
    tools = [*registry.resolve(Tool("file_editor"), context)]
    tools += registry.resolve(Tool("apply_patch"), context)
    with Toolset(tools) as toolset:
        exported = toolset.export("responses", native=True)
        assert exported[0] == {"type": "apply_patch"}
        assert [e.get("name") for e in exported[1:]] == ["file_editor"]
        update = OperationUpdateFile(type="update_file", path="a.txt", diff="@@\n-one\n+two\n")
        undo = {
            "type": "function_call",
            "call_id": "c2",
            "name": "file_editor",
            "arguments": '{"command": "undo_edit", "path": "a.txt"}',
        }
        [patched] = toolset.dispatch([call(update)])
        assert valid(patched)["status"] == "completed"
        assert (workspace / "a.txt").read_text() == "two\n"
        [undone] = toolset.dispatch([undo])
        assert undone["type"] == "function_call_output" and "one" in undone["output"]
    assert (workspace / "a.txt").read_text() == "one\n"


async def test_async_dispatch(workspace: Path) -> None:
    with load(workspace) as tools:
        tools.export("responses", native=True)
        create = OperationCreateFile(type="create_file", path="async.txt", diff="+a\n")
        [result] = await tools.adispatch([call(create)])
    assert valid(result)["status"] == "completed"
    assert (workspace / "async.txt").read_text() == "a\n"
