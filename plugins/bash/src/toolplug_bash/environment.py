"""The environment a session's shell starts with.

Two bases: the host's whole environment (*inherit*, the default in a library host), or
a *minimal* one, which keeps only :data:`MINIMAL` (and the locale's ``LC_*``), the names
the host allows and the names in ``TOOLPLUG_BASH_PASS_ENV`` (how the operator of a
server such as ``toolplug mcp serve`` lets more through). A server says which base its
tools get with ``ToolContext.extra["inherit_env"]``; the ``inherit_env`` param wins.
"""

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

#: What a minimal environment keeps of the host's (with every ``LC_*``): nothing secret.
MINIMAL = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM")

#: The host variable that names (comma- or space-separated) more variables a minimal
#: environment lets through.
PASS_ENV_VAR = "TOOLPLUG_BASH_PASS_ENV"

#: Shell variables of the host that would disturb the session's prompt protocol.
_DROPPED = ("PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "BASH_ENV", "ENV", "HISTFILE")


def session_env(
    base: Mapping[str, str],
    *,
    inherit: bool = True,
    allowlist: Iterable[str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Build a session's environment.

    ``base`` is the host's environment. With ``inherit`` and no ``allowlist``, all of
    it passes; with an ``allowlist``, only the variables it names; without ``inherit``,
    the minimal set, the ``allowlist`` and the names in ``TOOLPLUG_BASH_PASS_ENV``.
    Then the quiet-terminal settings apply, and last the host's ``extra`` variables
    (which may override them).
    """
    if inherit and allowlist is None:
        env = dict(base)
    else:
        allowed = set(allowlist or ())
        if not inherit:
            allowed.update(MINIMAL)
            allowed.update(base.get(PASS_ENV_VAR, "").replace(",", " ").split())
        env = {
            k: v for k, v in base.items() if k in allowed or (not inherit and k.startswith("LC_"))
        }
    for name in _DROPPED:
        env.pop(name, None)
    env.update(QUIET_TERMINAL)
    env.update(extra or {})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env
