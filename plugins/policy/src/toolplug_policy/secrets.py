"""What the audit log leaves out: secrets, by the name they go by and by their look, and
the bulk of huge values.

By name: the value of a key whose words (split at ``_``, ``-``, ``.``, spaces and
camelCase humps) include a secret word (``password``, ``pw``, ``pin``, ``otp``, ``jwt``,
``key``, ``token``, ``session``, ``signature``, ``cookie``, ``auth``...) or end in one
(``apitoken``, ``clientsecret``) is written as :data:`MASK`, at any depth. The same
goes for ``[name, value]`` pairs and ``{"name": ..., "value": ...}`` entries (header
lists) and ``NAME=value`` words (``env`` lists, variables set on a command line).

By value, in any string: a bearer or basic credential (``Bearer eyJ...``), a password
or token in a URL (``https://user:pw@host``), an ``Authorization:`` header written
out, and tokens of well-known shapes (JWTs, GitHub, Slack, AWS, OpenAI-style keys).

Keys longer than :data:`MAX_KEY` and strings longer than :data:`MAX_STRING` are cut,
containers longer than :data:`MAX_ITEMS` too, each with a note of what was left out.
"""

from __future__ import annotations

import functools
import re
from typing import Any

MASK = "***"
#: The longest string value written whole; longer ones are cut with a note.
MAX_STRING = 2000
#: The longest key written whole.
MAX_KEY = 200
#: The most items of one list or mapping written.
MAX_ITEMS = 1000
#: How deep a value is followed.
MAX_DEPTH = 50

#: Words that make a key secret when it has one of them.
SECRET_WORDS = frozenset(
    [
        "pass",
        "passwd",
        "password",
        "passphrase",
        "pw",
        "pwd",
        "pin",
        "otp",
        "totp",
        "hotp",
        "mfa",
        "jwt",
        "key",
        "apikey",
        "token",
        "secret",
        "session",
        "sessionid",
        "sid",
        "signature",
        "sig",
        "cookie",
        "cookies",
        "auth",
        "authorization",
        "bearer",
        "credential",
        "credentials",
        "cred",
        "creds",
        "csrf",
        "xsrf",
        "privkey",
    ]
)
#: Endings that make a one-word key secret (``apitoken``, ``clientsecret``).
SECRET_ENDINGS = (
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "sessionid",
    "cookie",
    "signature",
    "credential",
    "credentials",
)

_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")

#: Secrets recognised by their look, in any string: (a word that must be in the
#: lower-cased text for the pattern to be tried, pattern, replacement).
_BY_VALUE: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    # A header written out: "Authorization: Bearer x", "Cookie: a=b", "X-Api-Key: k".
    (
        ("authorization", "cookie", "api-key", "auth-token"),
        re.compile(
            r"(?i)\b((?:proxy-)?authorization|(?:set-)?cookie|x-api-key|api-key|x-auth-token)"
            r"(\s*[:=]\s*)[^\r\n\"']+"
        ),
        rf"\1\2{MASK}",
    ),
    (
        ("bearer", "basic"),
        re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]+"),
        rf"\1\2{MASK}",
    ),
    # A URL's userinfo: "https://user:pw@host", "https://TOKEN@host".
    (("://",), re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/\s:@]*):[^/\s@]*@"), rf"\1\2:{MASK}@"),
    (("://",), re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+@"), rf"\1{MASK}@"),
    # Tokens of well-known shapes: a JWT, then GitHub, GitLab, Slack, OpenAI-style, AWS.
    (("eyj",), re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*"), MASK),
    (
        ("gh", "github_pat_", "glpat-", "xox", "sk-", "akia"),
        re.compile(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}"
            r"|xox[abposr]-[\w-]{10,}|sk-[\w-]{20,}|AKIA[0-9A-Z]{16})"
        ),
        MASK,
    ),
)
#: ``NAME=value`` (an ``env`` entry, a variable on a command line, ``--password=x``).
_ASSIGNMENT = re.compile(r"(?<![\w-])(-{0,2}[A-Za-z_][\w.-]*)=(\"[^\"]*\"|'[^']*'|[^\s\"'&;|]+)")


def is_secret_name(name: str) -> bool:
    """Whether a key (or a variable's or header's name) names a secret."""
    if len(name) > MAX_KEY:
        name = name[:MAX_KEY]
    return _is_secret_name(name)


@functools.lru_cache(maxsize=4096)  # a tool's keys are few, and come back on every call
def _is_secret_name(name: str) -> bool:
    for word in _WORD_BREAK.split(name):
        lower = word.lower()
        if lower in SECRET_WORDS or (len(lower) > 5 and lower.endswith(SECRET_ENDINGS)):
            return True
    return False


def masked_text(text: str) -> str:
    """``text`` with secrets recognised by their look masked, and ``NAME=value`` words
    whose name names a secret; then cut to :data:`MAX_STRING` characters."""
    cut = len(text) > MAX_STRING
    if cut:  # mask a little past the cut, so that no secret is cut in two and kept
        rest = len(text) - MAX_STRING
        text = text[: MAX_STRING + 256]
    if len(text) > 8:  # shorter than any secret these find
        lower = text.lower()
        for words, pattern, replacement in _BY_VALUE:
            if any(word in lower for word in words):
                text = pattern.sub(replacement, text)
    if "=" in text:
        text = _ASSIGNMENT.sub(_mask_assignment, text)
    if cut:
        return f"{text[:MAX_STRING]}... ({rest:,} more characters)"
    return text


def _mask_assignment(found: re.Match[str]) -> str:
    return f"{found[1]}={MASK}" if is_secret_name(found[1].lstrip("-")) else found[0]


def masked(value: Any, depth: int = 0) -> Any:
    """``value`` (JSON data) with secrets masked and huge keys, strings and containers cut."""
    if depth > MAX_DEPTH:
        return "..."
    if isinstance(value, str):
        return masked_text(value)
    if isinstance(value, dict):
        return _masked_mapping(value, depth)
    if isinstance(value, (list, tuple)):
        if _is_pair(value) and is_secret_name(value[0]):  # ["Authorization", "Bearer x"]
            return [_key(value[0]), MASK]
        items = [masked(item, depth + 1) for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"... ({len(value) - MAX_ITEMS:,} more items)")
        return items
    return value


def _masked_mapping(value: dict[Any, Any], depth: int) -> dict[Any, Any]:
    # {"name": "Authorization", "value": "Bearer x"}: a header or variable as an entry.
    label = value.get("name", value.get("key"))
    entry_is_secret = isinstance(label, str) and "value" in value and is_secret_name(label)
    out: dict[Any, Any] = {}
    for i, (key, item) in enumerate(value.items()):
        if i == MAX_ITEMS:
            out["..."] = f"{len(value) - MAX_ITEMS:,} more keys"
            break
        secret = isinstance(key, str) and is_secret_name(key)
        if entry_is_secret and key == "value":
            secret = True
        out[_key(key)] = MASK if secret else masked(item, depth + 1)
    return out


_NAME = re.compile(r"[\w.-]{1,200}")


def _is_pair(value: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list is a ``[name, value]`` pair: a bare name (not ``A=b``), then a value."""
    return (
        len(value) == 2
        and isinstance(value[0], str)
        and _NAME.fullmatch(value[0]) is not None
        and not isinstance(value[1], (list, dict))
    )


def _key(key: Any) -> Any:
    if isinstance(key, str) and len(key) > MAX_KEY:
        return f"{key[:MAX_KEY]}... ({len(key) - MAX_KEY:,} more characters)"
    return key
