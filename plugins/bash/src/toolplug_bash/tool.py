"""The bash tool itself: :class:`BashTool`, whose ``create`` checks the params."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolplug import ToolAnnotations, ToolContext, ToolDefinition

from toolplug_bash import sandbox as sandboxing
from toolplug_bash.executor import BashConfig, BashExecutor
from toolplug_bash.types import DESCRIPTION, BashAction, BashObservation

ANNOTATIONS = ToolAnnotations(
    title="Bash",
    readOnlyHint=False,
    destructiveHint=True,
    idempotentHint=False,
    openWorldHint=True,
)


class BashTool(ToolDefinition[BashAction, BashObservation]):
    """The ``bash`` tool: one persistent shell session per created instance."""

    @classmethod
    def create(
        cls,
        context: ToolContext,
        *,
        timeout: float | None = None,
        no_output_timeout: float = 30.0,
        hard_timeout: float | None = None,
        max_output: int | None = None,
        max_saved_output: int = 64 * 1024 * 1024,
        env: Mapping[str, str] | None = None,
        env_allowlist: Sequence[str] | None = None,
        inherit_env: bool | None = None,
        shell: str = "bash",
        secrets: Sequence[str] | Mapping[str, str] = (),
        sandbox: str | None = None,
        network: bool | None = None,
        read_only_paths: Sequence[str] | None = None,
        writable_paths: Sequence[str] | None = None,
        max_memory_mb: int | None = None,
        max_cpu_seconds: int | None = None,
        max_processes: int | None = None,
        max_file_size_mb: int | None = None,
        max_tmp_mb: int | None = None,
        max_shm_mb: int | None = None,
    ) -> Sequence[BashTool]:
        """Build the tool for one host session; the shell itself starts on first use.

        - ``timeout``: seconds a call waits before control returns (default: the
          context's timeout, else 120); the command keeps running.
        - ``no_output_timeout``: control also returns after this many silent seconds.
        - ``hard_timeout``: a command running longer is killed with its whole process
          group (default: no limit).
        - ``max_output``: bytes of output shown (head and tail; default: the context's
          ``max_output``, else 30000). ``max_saved_output``: cap of the saved full output.
        - ``env``: variables to set; ``env_allowlist``: when given, only these
          variables of the host's environment reach the shell (added to the minimal
          ones when ``inherit_env`` is false).
        - ``inherit_env``: whether the shell starts from the host's whole environment
          (``context.env``) or from a minimal one (``PATH``, ``HOME``, ``USER``,
          ``LOGNAME``, ``LANG``, ``LANGUAGE``, ``LC_*``, ``TZ``, ``TMPDIR``, ``TERM`` and
          the names listed in the host's ``TOOLPLUG_BASH_PASS_ENV``). Default: the
          context's ``extra["inherit_env"]`` (``toolplug mcp serve`` sets it false),
          else true.
        - ``shell``: the bash executable (name or path).
        - ``secrets``: values (or a name -> value mapping) masked in all output.

        The sandbox (``docs/tools/bash.md`` tells what it protects against):

        - ``sandbox``: ``"none"`` or ``"bwrap"`` (the session runs under bubblewrap);
          default: the host's ``TOOLPLUG_BASH_SANDBOX``, else ``"none"``. With
          ``"bwrap"``, creating the tool fails (a ``ToolError``) when bubblewrap is
          missing or cannot run here; it never runs unsandboxed.
        - ``network``: whether the sandbox keeps the host's network (default false).
        - ``read_only_paths``, ``writable_paths``: more paths the sandbox shows (the
          home is hidden, the root read-only); absolute, ``~/...``, or relative to the
          workspace, and they must exist.
        - ``max_memory_mb`` (address space, 8192), ``max_cpu_seconds`` (per process,
          3600), ``max_processes`` (512), ``max_file_size_mb`` (1024): resource
          limits in the sandbox; 0 means no limit.
        - ``max_tmp_mb`` (1024): the size of the sandbox's private ``/tmp``, and of
          each hidden home; ``max_shm_mb`` (64): the size of its ``/dev/shm``. They
          are memory of the host that ``max_memory_mb`` does not count; 0 leaves the
          kernel's default size, half of the host's memory.
        """
        config = BashConfig(
            workspace=context.workspace,
            base_env=dict(context.env),
            timeout=_positive("timeout", _first(timeout, context.timeout, 120.0)),
            no_output_timeout=_positive("no_output_timeout", no_output_timeout),
            hard_timeout=None if hard_timeout is None else _positive("hard_timeout", hard_timeout),
            max_output=int(_positive("max_output", _first(max_output, context.max_output, 30000))),
            max_saved_output=int(_positive("max_saved_output", max_saved_output)),
            env=_string_map("env", env or {}),
            env_allowlist=None if env_allowlist is None else _names(env_allowlist),
            inherit_env=_flag(
                "inherit_env", _first(inherit_env, context.extra.get("inherit_env"), True)
            ),
            shell=_find_shell(shell, env, context.env),
            secrets=_secret_values(secrets),
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
        tool = cls(
            name="bash",
            description=DESCRIPTION,
            action_type=BashAction,
            observation_type=BashObservation,
            executor=BashExecutor(config),
            annotations=ANNOTATIONS,
        )
        return [tool]


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
        network=_flag("network", False if network is None else network),
        **checked,
    )
    sandboxing.check_runs(bwrap, network=config.network)
    return config


def _limit(name: str, value: Any, default: int) -> int | None:
    """A resource limit: None gives the default, 0 no limit."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number, 0 or more (0: no limit), got {value!r}")
    return value or None


def _paths(name: str, value: Sequence[str] | None, workspace: Path) -> tuple[Path, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{name} must be a list of paths")
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


def _string_map(name: str, value: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"{name} must map variable names to string values")
    return dict(value)


def _names(value: Sequence[str]) -> list[str]:
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ValueError("env_allowlist must be a list of variable names")
    return list(value)


def _secret_values(value: Sequence[str] | Mapping[str, str]) -> list[str]:
    values = list(value.values()) if isinstance(value, Mapping) else list(value)
    if isinstance(value, str) or not all(isinstance(v, str) for v in values):
        raise ValueError("secrets must be a list of strings (or a name -> value mapping)")
    return [v for v in values if v]


def _find_shell(shell: str, env: Mapping[str, str] | None, base: Mapping[str, str]) -> str:
    path = (env or {}).get("PATH") or base.get("PATH") or None
    found = shutil.which(shell, path=path)
    if found is None:
        raise ValueError(f"shell {shell!r} was not found (it must be bash, version 4 or newer)")
    return found
