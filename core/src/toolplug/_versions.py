"""Version specifiers, as far as a plugin's ``Requires-Dist: toolplug ...`` needs them.

The core checks that it is inside the range of core versions each plugin declares (see
:func:`toolplug.plugins.core_range_error`). ``packaging`` would do this, but it is not a
dependency of the core, and pip's vendored copy is not there in every environment (a
venv made by uv has no pip), so this module does the part of PEP 440 the check needs:

- versions ``N(.N)*`` with an optional pre-release (``a``, ``b``, ``rc``), post-release,
  dev-release and local part, compared in PEP 440 order;
- the operators ``==``, ``!=`` (both with ``.*``), ``<=``, ``>=``, ``<``, ``>`` and
  ``~=``, with PEP 440's rule that ``<V`` admits no pre-release of ``V`` and ``>V`` no
  post-release of it.

A specifier it cannot read (``===``, a malformed version) makes :func:`contains` return
``None``, "cannot tell", and the caller then loads the plugin as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_VERSION = re.compile(
    r"""^v?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?
    (?:-(?P<post_implicit>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>\d*))?
    (?:[-_.]?dev[-_.]?(?P<dev_n>\d*))?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    $""",
    re.VERBOSE,
)
_PHASES = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_SPECIFIER = re.compile(r"^(?P<op>~=|==|!=|<=|>=|<|>)\s*(?P<version>[^\s,]+)$")
_INFINITY = float("inf")


@dataclass(frozen=True)
class Version:
    """A PEP 440 version; instances compare in PEP 440 order (the local part aside)."""

    release: tuple[int, ...]
    pre: tuple[int, int] | None = None
    post: int | None = None
    dev: int | None = None
    local: str | None = None

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """The version ``text`` spells, or ``None`` if it is not a PEP 440 version."""
        match = _VERSION.match(text.strip().lower())
        if match is None:
            return None
        pre = None
        if match["pre"]:
            pre = (_PHASES[match["pre"]], int(match["pre_n"] or 0))
        post = None
        if match["post_implicit"]:
            post = int(match["post_implicit"])
        elif match["post_n"] is not None:
            post = int(match["post_n"] or 0)
        dev = int(match["dev_n"] or 0) if match["dev_n"] is not None else None
        release = tuple(int(part) for part in match["release"].split("."))
        return cls(release, pre, post, dev, match["local"])

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    def _key(self) -> tuple[object, ...]:
        release = list(self.release)
        while len(release) > 1 and release[-1] == 0:  # 1.0 == 1.0.0
            release.pop()
        if self.pre is None and self.post is None and self.dev is not None:
            pre: tuple[float, float] = (-_INFINITY, 0)  # 1.0.dev1 sorts before 1.0a1
        elif self.pre is None:
            pre = (_INFINITY, 0)
        else:
            pre = self.pre
        post = -_INFINITY if self.post is None else self.post
        dev = _INFINITY if self.dev is None else self.dev
        return (tuple(release), pre, post, dev)

    def __lt__(self, other: Version) -> bool:
        return self._key() < other._key()

    def __le__(self, other: Version) -> bool:
        return self._key() <= other._key()

    def same(self, other: Version) -> bool:
        """Equal in PEP 440 order (trailing zeros and the local part do not count)."""
        return self._key() == other._key()

    def __str__(self) -> str:
        text = ".".join(map(str, self.release))
        if self.pre is not None:
            text += ("a", "b", "rc")[self.pre[0]] + str(self.pre[1])
        if self.post is not None:
            text += f".post{self.post}"
        if self.dev is not None:
            text += f".dev{self.dev}"
        return text + (f"+{self.local}" if self.local else "")


def _prefix_match(version: Version, prefix: tuple[int, ...]) -> bool:
    """``version`` matches ``==prefix.*``: its release, padded with zeros, starts so."""
    release = version.release + (0,) * max(0, len(prefix) - len(version.release))
    return release[: len(prefix)] == prefix


def _one(version: Version, op: str, text: str) -> bool | None:
    """Whether ``version`` satisfies one clause ``op text``; ``None`` if unreadable."""
    if op in ("==", "!=") and text.endswith(".*"):
        bound = Version.parse(text[:-2])
        if bound is None or bound.pre or bound.post is not None or bound.dev is not None:
            return None
        matched = _prefix_match(version, bound.release)
        return matched if op == "==" else not matched
    bound = Version.parse(text)
    if bound is None:
        return None
    # A clause without a local part ignores the candidate's local part.
    if bound.local is None and version.local is not None:
        version = Version(version.release, version.pre, version.post, version.dev)
    if op == "==":
        return version.same(bound) and version.local == bound.local
    if op == "!=":
        return not (version.same(bound) and version.local == bound.local)
    if op == "<=":
        return version <= bound
    if op == ">=":
        return bound <= version
    if op == "<":
        # <1.0 admits no 1.0 pre-release, unless the bound is one itself (or a post-release).
        plain = not bound.is_prerelease and bound.post is None
        if plain and version.is_prerelease and Version(version.release).same(bound):
            return False
        return version < bound
    if op == ">":
        # >1.0 admits no 1.0 post-release, unless the bound is one itself.
        of_bound = Version(version.release, version.pre).same(bound)
        if bound.post is None and version.post is not None and of_bound:
            return False
        return bound < version
    if op == "~=":
        if len(bound.release) < 2:
            return None
        return bound <= version and _prefix_match(version, bound.release[:-1])
    return None  # pragma: no cover - the pattern admits no other operator


@lru_cache(maxsize=64)  # plugins of one family repeat one range: parse it once
def contains(specifiers: str, version: str) -> bool | None:
    """Whether ``version`` is inside ``specifiers`` (``">=0.2,<0.3"``); ``None``: cannot tell.

    An empty specifier admits every version.
    """
    candidate = Version.parse(version)
    if candidate is None:
        return None
    verdict = True
    for clause in filter(None, (part.strip() for part in specifiers.split(","))):
        match = _SPECIFIER.match(clause)
        if match is None:
            return None
        one = _one(candidate, match["op"], match["version"])
        if one is None:
            return None
        verdict = verdict and one
    return verdict
