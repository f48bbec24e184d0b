"""The bash tool itself: :class:`BashTool`, whose ``create`` takes the params."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field
from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from toolplug_bash import sandbox as sandboxing
from toolplug_bash.anthropic_form import BashForm
from toolplug_bash.background import ProcessTable
from toolplug_bash.background_tools import BashOutputExecutor, BashStopExecutor, notifier
from toolplug_bash.executor import BashConfig, BashExecutor
from toolplug_bash.responses_form import ShellForm
from toolplug_bash.types import (
    DESCRIPTION,
    OUTPUT_DESCRIPTION,
    STOP_DESCRIPTION,
    BackgroundBashAction,
    BashAction,
    BashObservation,
    BashOutputAction,
    BashStopAction,
    ProcessObservation,
)

ANNOTATIONS = ToolAnnotations(
    title="Bash",
    readOnlyHint=False,
    destructiveHint=True,
    idempotentHint=False,
    openWorldHint=True,
)

#: Reading a background process changes nothing; stopping one ends it.
OUTPUT_ANNOTATIONS = ToolAnnotations(
    title="Bash output",
    readOnlyHint=True,
    destructiveHint=False,
    idempotentHint=False,
    openWorldHint=False,
)
STOP_ANNOTATIONS = ToolAnnotations(
    title="Bash stop",
    readOnlyHint=False,
    destructiveHint=True,
    idempotentHint=True,
    openWorldHint=False,
)


class BashTool(ToolDefinition[BashAction, BashObservation]):
    """The ``bash`` tool: one persistent shell session per created instance."""

    #: The output is capped while it streams (see the executor), so the toolset's
    #: output budget leaves it alone.
    bounds_output = True

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        timeout: Annotated[
            float | None,
            Field(
                gt=0,
                allow_inf_nan=False,
                description="Seconds a call waits before control returns (default: the "
                "context's timeout, else 120); the command keeps running.",
            ),
        ] = None,
        no_output_timeout: Annotated[
            float,
            Field(
                gt=0,
                allow_inf_nan=False,
                description="Control also returns after this many silent seconds.",
            ),
        ] = 30.0,
        hard_timeout: Annotated[
            float | None,
            Field(
                gt=0,
                allow_inf_nan=False,
                description="A command running longer is killed with its whole process "
                "group (default: no limit).",
            ),
        ] = None,
        max_output: Annotated[
            int | None,
            Field(
                gt=0,
                description="Bytes of output shown, head and tail (default: the context's "
                "max_output, else 30000).",
            ),
        ] = None,
        max_saved_output: Annotated[
            int, Field(gt=0, description="Cap of the saved full output, in bytes.")
        ] = 64 * 1024 * 1024,
        env: Annotated[
            Mapping[str, str] | None, Field(description="Variables to set in the shell.")
        ] = None,
        env_allowlist: Annotated[
            Sequence[str] | None,
            Field(
                description="When given, only these variables of the host's environment "
                "reach the shell (added to the minimal ones when inherit_env is false)."
            ),
        ] = None,
        inherit_env: Annotated[
            bool | None,
            Field(
                description="Whether the shell starts from the host's whole environment "
                "(context.env) or from a minimal one (PATH, HOME, USER, LOGNAME, LANG, "
                "LANGUAGE, LC_*, TZ, TMPDIR, TERM and the names listed in the host's "
                "TOOLPLUG_BASH_PASS_ENV). Default: the context's extra['inherit_env'] "
                "(`toolplug mcp serve` sets it false), else true."
            ),
        ] = None,
        shell: Annotated[str, Field(description="The bash executable (name or path).")] = "bash",
        secrets: Annotated[
            Sequence[str] | Mapping[str, str],
            Field(description="Values (or a name -> value mapping) masked in all output."),
        ] = (),
        sandbox: Annotated[
            str | None,
            Field(
                description='"none" or "bwrap" (the session runs under bubblewrap); '
                'default: the host\'s TOOLPLUG_BASH_SANDBOX, else "none". With "bwrap", '
                "creating the tool fails when bubblewrap is missing or cannot run here; it "
                "never runs unsandboxed."
            ),
        ] = None,
        network: Annotated[
            bool | None,
            Field(description="Whether the sandbox keeps the host's network (default false)."),
        ] = None,
        read_only_paths: Annotated[
            Sequence[str] | None,
            Field(
                description="More paths the sandbox shows read-only (the home is hidden, "
                "the root read-only): absolute, ~/..., or relative to the workspace; they "
                "must exist."
            ),
        ] = None,
        writable_paths: Annotated[
            Sequence[str] | None,
            Field(
                description="More paths the sandbox shows writable: absolute, ~/..., or "
                "relative to the workspace; they must exist."
            ),
        ] = None,
        max_memory_mb: Annotated[
            int | None,
            Field(description="Address space per process in the sandbox (8192); 0: no limit."),
        ] = None,
        max_cpu_seconds: Annotated[
            int | None,
            Field(description="CPU seconds per process in the sandbox (3600); 0: no limit."),
        ] = None,
        max_processes: Annotated[
            int | None,
            Field(description="Processes in the sandbox (512); 0: no limit."),
        ] = None,
        max_file_size_mb: Annotated[
            int | None,
            Field(description="Largest file a process in the sandbox writes (1024); 0: no limit."),
        ] = None,
        max_tmp_mb: Annotated[
            int | None,
            Field(
                description="Size of the sandbox's private /tmp, and of each hidden home "
                "(1024): memory of the host that max_memory_mb does not count; 0 leaves "
                "the kernel's default size, half of the host's memory."
            ),
        ] = None,
        max_background: Annotated[
            int,
            Field(
                ge=0,
                description="Background processes that may run at once; above 0 the "
                "model can start them and gets bash_output and bash_stop (default 0: off).",
            ),
        ] = 0,
        max_shm_mb: Annotated[
            int | None,
            Field(
                description="Size of the sandbox's /dev/shm (64): memory of the host that "
                "max_memory_mb does not count; 0 leaves the kernel's default size."
            ),
        ] = None,
    ) -> Sequence[ToolDefinition[Any, Any]]:
        """Build the tool for one host session; the shell itself starts on first use.

        Each param is described in its annotation (``toolplug tools --params`` lists
        them), and the registry has checked their types and ranges before this runs;
        ``docs/tools/bash.md`` tells what the sandbox protects against.
        """
        config = BashConfig(
            workspace=context.workspace,
            base_env=dict(context.env),
            timeout=_positive("timeout", _first(timeout, context.timeout, 120.0)),
            no_output_timeout=no_output_timeout,
            hard_timeout=hard_timeout,
            max_output=int(_positive("max_output", _first(max_output, context.max_output, 30000))),
            max_saved_output=max_saved_output,
            env=dict(env or {}),
            env_allowlist=None if env_allowlist is None else list(env_allowlist),
            inherit_env=_flag(
                "inherit_env", _first(inherit_env, context.extra.get("inherit_env"), True)
            ),
            shell=_find_shell(shell, env, context.env),
            secrets=_secret_values(secrets),
            max_background=max_background,
            one_call=context.extra.get("one_call") is True,
        )
        if not config.workspace.is_dir():
            raise ValueError(f"the workspace {config.workspace} is not a directory")
        config.sandbox = _sandbox_config(
            context,
            sandbox,
            env=env or {},
            network=network,
            read_only_paths=read_only_paths,
            writable_paths=writable_paths,
            limits={
                "max_memory_mb": max_memory_mb,
                "max_cpu_seconds": max_cpu_seconds,
                "max_processes": max_processes,
                "max_file_size_mb": max_file_size_mb,
                "max_tmp_mb": max_tmp_mb,
                "max_shm_mb": max_shm_mb,
            },
        )
        executor = BashExecutor(config)
        tool = cls(
            name="bash",
            description=DESCRIPTION,
            action_type=BashAction if executor.processes is None else BackgroundBashAction,
            observation_type=BashObservation,
            executor=executor,
            annotations=ANNOTATIONS,
            native_forms={
                "anthropic": BashForm(),  # Claude's bash_20250124
                "responses": ShellForm(executor),  # the Responses API's shell
            },
        )
        if executor.processes is None:
            return [tool]
        executor.processes.on_end = notifier(context)
        return [tool, *background_tools(executor.processes, config.max_output)]


def background_tools(table: ProcessTable, max_output: int) -> list[ToolDefinition[Any, Any]]:
    """``bash_output`` and ``bash_stop``, sharing the bash tool's background processes."""
    return [
        ToolDefinition(
            name="bash_output",
            description=OUTPUT_DESCRIPTION,
            action_type=BashOutputAction,
            observation_type=ProcessObservation,
            executor=BashOutputExecutor(table, max_output),
            annotations=OUTPUT_ANNOTATIONS,
        ),
        ToolDefinition(
            name="bash_stop",
            description=STOP_DESCRIPTION,
            action_type=BashStopAction,
            observation_type=ProcessObservation,
            executor=BashStopExecutor(table, max_output),
            annotations=STOP_ANNOTATIONS,
        ),
    ]


def _sandbox_config(
    context: ToolContext,
    mode: str | None,
    *,
    env: Mapping[str, str],
    network: bool | None,
    read_only_paths: Sequence[str] | None,
    writable_paths: Sequence[str] | None,
    limits: dict[str, int | None],
) -> sandboxing.SandboxConfig | None:
    """The sandbox the params ask for (None: none); bubblewrap is found and tried."""
    from_env = mode is None
    if from_env:
        mode = context.env.get(sandboxing.ENV_VAR, "").strip().lower() or "none"
    if mode not in sandboxing.MODES:
        where = f"the host's {sandboxing.ENV_VAR}" if from_env else "sandbox"
        raise ValueError(f"{where} must be one of {', '.join(sandboxing.MODES)}; got {mode!r}")
    given = {
        "network": network,
        "read_only_paths": read_only_paths,
        "writable_paths": writable_paths,
        **limits,
    }
    if mode == "none":
        named = [name for name, value in given.items() if value is not None]
        if named:
            raise ValueError(
                f"{', '.join(named)} only apply in a sandbox; add sandbox='bwrap' (or set "
                f"{sandboxing.ENV_VAR}=bwrap), or leave them out"
            )
        return None
    workspace = Path(os.path.abspath(context.workspace))
    defaults = {
        "max_memory_mb": sandboxing.DEFAULT_MAX_MEMORY_MB,
        "max_cpu_seconds": sandboxing.DEFAULT_MAX_CPU_SECONDS,
        "max_processes": sandboxing.DEFAULT_MAX_PROCESSES,
        "max_file_size_mb": sandboxing.DEFAULT_MAX_FILE_SIZE_MB,
        "max_tmp_mb": sandboxing.DEFAULT_MAX_TMP_MB,
        "max_shm_mb": sandboxing.DEFAULT_MAX_SHM_MB,
    }
    checked = {name: _limit(name, value, defaults[name]) for name, value in limits.items()}
    bwrap = sandboxing.find_bwrap(env.get("PATH") or context.env.get("PATH"))
    config = sandboxing.SandboxConfig(
        bwrap=bwrap,
        workspace=workspace,
        hidden=sandboxing.hidden_homes(env.get("HOME") or context.env.get("HOME")),
        read_only_paths=_paths("read_only_paths", read_only_paths, workspace),
        writable_paths=_paths("writable_paths", writable_paths, workspace),
        network=bool(network),
        **checked,
    )
    sandboxing.check_runs(bwrap, network=config.network)
    return config


def _limit(name: str, value: Any, default: int) -> int | None:
    """A resource limit: None gives the default, 0 no limit."""
    if value is None:
        return default
    if value < 0:  # an int: the registry checked the type
        raise ValueError(f"{name} must be a whole number, 0 or more (0: no limit), got {value!r}")
    return value or None


def _paths(name: str, value: Sequence[str] | None, workspace: Path) -> tuple[Path, ...]:
    if value is None:
        return ()
    if not all(value):  # a list of strings: the registry checked the type
        raise ValueError(f"{name} must be a list of paths, none of them empty")
    found = []
    for entry in value:
        path = Path(os.path.abspath(workspace / os.path.expanduser(entry)))
        if not path.exists():
            raise ValueError(f"{name}: {entry!r} ({path}) does not exist")
        found.append(path)
    return tuple(found)


def _first(*values: Any) -> Any:
    """The first value that is not None."""
    return next(v for v in values if v is not None)


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number, got {value!r}")
    return float(value)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def _secret_values(value: Sequence[str] | Mapping[str, str]) -> list[str]:
    values = list(value.values()) if isinstance(value, Mapping) else list(value)
    return [v for v in values if v]


def _find_shell(shell: str, env: Mapping[str, str] | None, base: Mapping[str, str]) -> str:
    path = (env or {}).get("PATH") or base.get("PATH") or None
    found = shutil.which(shell, path=path)
    if found is None:
        raise ValueError(f"shell {shell!r} was not found (it must be bash, version 4 or newer)")
    return found
