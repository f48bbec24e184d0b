"""The screen that decides which whitelisted files get the full gitignore check."""

from __future__ import annotations

import random

import pytest
from pathspec import GitIgnoreSpec
from toolplug_glob.endings import compatible_endings, glob_name_endings, rule_endings
from toolplug_glob.patterns import compile_glob


@pytest.mark.parametrize(
    ("rule", "endings"),
    [
        ("*.log", [".log"]),
        ("*.py[cod]", [".pyc", ".pyd", ".pyo"]),
        ("local_settings.py", ["local_settings.py"]),
        ("/src/gen_*.py", [".py"]),
        ("docs/**/*.md", [".md"]),
        ("*", [""]),
        ("foo?", [""]),
        ("*[0-9]", [""]),  # a range is not spelt out
        ("*.[!a]", [""]),
        ("a\\*b", ["a*b"]),  # an escaped star is a literal
        ("\\#notes", ["#notes"]),
        ("\\!important", ["!important"]),
        ("trailing   ", ["trailing"]),
        ("escaped\\ ", ["escaped "]),
        ("x[[:digit:]]", [""]),  # POSIX classes: not screened
        ("build/", None),
        ("!keep.log", None),
        ("# a comment", None),
        ("", None),
    ],
)
def test_rule_endings(rule: str, endings: list[str] | None) -> None:
    assert rule_endings(rule) == endings


_RULE_CHARS = ["a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-c]", "\\*", "/", "**/", "c"]
_NAME_CHARS = ["a", "b", "c", ".", "*", "x"]


def _random_rule(rng: random.Random) -> str:
    return "".join(rng.choice(_RULE_CHARS) for _ in range(rng.randint(1, 5)))


def _random_path(rng: random.Random) -> str:
    segments = [
        "".join(rng.choice(_NAME_CHARS) for _ in range(rng.randint(1, 4)))
        for _ in range(rng.randint(1, 3))
    ]
    return "/".join(segments)


def test_every_file_a_rule_ignores_has_one_of_its_endings() -> None:
    # Soundness against pathspec (the full check): a file the rule ignores by itself,
    # not through an ignored parent directory (ripgrep never walks those), must pass
    # the screen. A thousand random rules against three hundred random paths each.
    rng = random.Random(20261121)
    paths = [_random_path(rng) for _ in range(300)]
    checked = 0
    for _ in range(1000):
        rule = _random_rule(rng)
        spec = GitIgnoreSpec.from_lines([rule])
        endings = rule_endings(rule)
        for path in paths:
            parts = path.split("/")
            parents = ["/".join(parts[:depth]) + "/" for depth in range(1, len(parts))]
            if any(spec.match_file(parent) for parent in parents):
                continue
            if spec.match_file(path):
                checked += 1
                assert endings is not None and path.endswith(tuple(endings)), (rule, path)
    assert checked > 500  # the random rules did ignore files: the check had teeth


@pytest.mark.parametrize(
    ("name", "endings"),
    [
        ("*.py", [".py"]),
        ("test_*.py", [".py"]),
        ("*.{py,md}", [".md", ".py"]),
        ("{Makefile,*.mk}", [".mk", "Makefile"]),
        ("*.[ch]", [".c", ".h"]),
        ("*", [""]),
        ("data_?", [""]),
    ],
)
def test_glob_name_endings(name: str, endings: list[str]) -> None:
    assert glob_name_endings(name) == endings


def test_compatible_endings() -> None:
    rules = {".pyc", ".log", "local_settings.py", ".py", "y", ""}
    assert compatible_endings(rules, [".py"]) == ("", ".py", "local_settings.py", "y")
    assert compatible_endings(rules, [""]) == tuple(sorted(rules))
    assert compatible_endings({".log"}, [".md", ".py"]) == ()


_NAME_GLOBS = ["*.py", "*.{py,pyc}", "a*", "*[ab]", "test_?.*", "*.p[yx]", "{a,b}*.c"]


def test_a_listed_file_a_rule_ignores_keeps_a_compatible_ending() -> None:
    # The whole screen: a file listed for the whitelist glob that the rule ignores must
    # still end with one of the rule's endings that the glob's endings allow.
    rng = random.Random(7)
    stems = ["".join(rng.choice(_NAME_CHARS) for _ in range(rng.randint(1, 4))) for _ in range(60)]
    names = [stem + ext for stem in stems for ext in ("", ".py", ".pyc", ".c", "b")]
    names += ["test_1.py", "test_a.pyx", "x.pyc"]
    checked = 0
    for _ in range(600):
        rule = _random_rule(rng).rsplit("/", 1)[-1] or "*"
        spec = GitIgnoreSpec.from_lines([rule])
        for glob in _NAME_GLOBS:
            listed = compile_glob(glob)
            screen = compatible_endings(set(rule_endings(rule) or ()), glob_name_endings(glob))
            for name in names:
                if listed.fullmatch(name) and spec.match_file(name):
                    checked += 1
                    assert name.endswith(screen), (rule, glob, name)
    assert checked > 100
