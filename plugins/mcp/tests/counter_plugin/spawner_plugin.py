"""A test-only toolplug plugin: a tool that holds a temp dir and a detached child.

Each call of ``spawn`` creates a temp directory and starts ``sleep`` in a session of its
own (as ``nohup ... &`` plus ``setsid`` would), so the child outlives the server unless
the tool is closed: ``close()`` kills the children and removes the directories. With
``wait`` the call lasts as long as the child (a call in flight at shutdown). The
tests read the pids and paths from the results and check both are gone after the
server's shutdown.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile

from pydantic import Field
from toolplug import Action, Observation, ToolDefinition, ToolExecutor, hookimpl


class SpawnAction(Action):
    seconds: int = Field(default=1000, description="How long the child sleeps.")
    wait: bool = Field(default=False, description="Wait for the child (a call in flight).")


class SpawnObservation(Observation):
    pid: int = Field(description="The detached child's process id.")
    directory: str = Field(description="The temp directory the tool holds.")


class Spawner(ToolExecutor[SpawnAction, SpawnObservation]):
    def __init__(self) -> None:
        self.children: list[subprocess.Popen[bytes]] = []
        self.directories: list[str] = []

    def __call__(self, action: SpawnAction) -> SpawnObservation:
        directory = tempfile.mkdtemp(prefix="toolplug-spawn-")
        self.directories.append(directory)
        child = subprocess.Popen(["sleep", str(action.seconds)], start_new_session=True)
        self.children.append(child)
        if action.wait:
            child.wait()
        return SpawnObservation.from_text(
            f"{child.pid} {directory}", pid=child.pid, directory=directory
        )

    def close(self) -> None:
        for child in self.children:
            child.kill()
            child.wait()
        for directory in self.directories:
            shutil.rmtree(directory, ignore_errors=True)
        self.children.clear()
        self.directories.clear()


class SpawnerTool(ToolDefinition[SpawnAction, SpawnObservation]):
    @classmethod
    def create(cls, context, **params):  # type: ignore[no-untyped-def]
        return [
            cls(
                name="spawn",
                description="Start a detached child and make a temp dir, kept until close.",
                action_type=SpawnAction,
                observation_type=SpawnObservation,
                executor=Spawner(),
            )
        ]


@hookimpl
def register_tools(register):  # type: ignore[no-untyped-def]
    register(SpawnerTool, name="spawn")
