"""The environment a session's shell starts with."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: Set in every session so that no program stops to page, colour or decorate its output.
QUIET_TERMINAL = {
    "TERM": "dumb",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "cat",
    "GH_PAGER": "cat",
    "BAT_PAGER": "cat",
    "PSQL_PAGER": "cat",
    "AWS_PAGER": "",
    "LESS": "-R -F -X",
    "NO_COLOR": "1",
    "PYTHONUNBUFFERED": "1",
    "VIRTUAL_ENV_DISABLE_PROMPT": "1",
    "COLUMNS": "200",
    "LINES": "50",
}

#: Shell variables of the host that would disturb the session's prompt protocol.
_DROPPED = ("PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "BASH_ENV", "ENV", "HISTFILE")


def session_env(
    base: Mapping[str, str],
    *,
    allowlist: Iterable[str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Build a session's environment.

    ``base`` is the host's environment; with an ``allowlist`` only the variables it
    names pass. Then the quiet-terminal settings apply, and last the host's ``extra``
    variables (which may override them).
    """
    if allowlist is not None:
        allowed = set(allowlist)
        env = {k: v for k, v in base.items() if k in allowed}
    else:
        env = dict(base)
    for name in _DROPPED:
        env.pop(name, None)
    env.update(QUIET_TERMINAL)
    env.update(extra or {})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env
