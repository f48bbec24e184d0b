"""Build every toolplug distribution into one wheelhouse, check it, install it offline.

The steps, in order (``tox -e release`` runs them all):

1. **Consistency**: every distribution (``core/`` and each ``plugins/*/``) has a version
   equal to the top version entry of its ``CHANGELOG.md`` (and to ``__version__`` where
   its package has one), and its release tag, ``<name>-v<version>``, maps back to its
   directory and no other.
2. **Build**: an sdist and a wheel of each distribution into the wheelhouse, then the
   wheels of everything they depend on (built from source where the index has none), so
   that the wheelhouse installs with no index at all.
3. **Check**: ``twine check --strict`` on every sdist and wheel built here, and the
   wheels' metadata is complete: license expression and file, project URLs, classifiers
   for each supported Python, ``Typing :: Typed``, a development status,
   ``Requires-Python`` and the readme; each sdist has its license, readme and changelog.
4. **Install**: a fresh venv gets every distribution with
   ``pip install --no-index --find-links WHEELHOUSE toolplug toolplug-...`` (pip's own
   configuration ignored, so nothing comes from elsewhere), then runs
   ``toolplug plugins --check`` and one real tool call.

Usage::

    python tools/release.py [--wheelhouse DIR]   # all four steps (default DIR: dist/)
    python tools/release.py check                # step 1 only (no network, a second)
    python tools/release.py dir-for-tag TAG      # the directory a tag releases

The release workflow (``.github/workflows/release.yml``) uses ``dir-for-tag``, which
runs step 1 for that distribution too: a tag whose version is not the one in the
directory's ``pyproject.toml`` and changelog is refused before anything is built.
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the release env runs on 3.11+; tomli is the same parser
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
#: The Python versions every distribution is tested on and says it supports.
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
#: A release tag: the distribution's name, then ``-v`` and its version.
TAG = re.compile(r"^(?P<name>toolplug(?:-[a-z0-9-]+)?)-v(?P<version>\d[0-9A-Za-z.+-]*)$")
#: A changelog's version heading, Keep a Changelog style: ``## [0.2.1] - 2026-11-24``.
CHANGELOG_VERSION = re.compile(r"^## \[(?P<version>\d[^\]]*)\]", re.M)


class ReleaseError(Exception):
    """A check failed: the message says which distribution and what to fix."""


@dataclass(frozen=True)
class Distribution:
    """One releasable distribution: its directory and what its pyproject.toml says."""

    directory: Path
    relative: str  # the directory, from the repository's root: "plugins/bash"
    name: str
    version: str
    package: str  # the import package under src/

    @property
    def tag(self) -> str:
        """The git tag that releases this version, e.g. ``toolplug-bash-v0.3.0``."""
        return f"{self.name}-v{self.version}"


def distributions(root: Path = ROOT) -> list[Distribution]:
    """The core and every plugin with a pyproject.toml, core first."""
    found = []
    for directory in [root / "core", *sorted((root / "plugins").iterdir())]:
        pyproject = directory / "pyproject.toml"
        if not pyproject.is_file():
            continue
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        package = project["name"].replace("-", "_")
        relative = directory.relative_to(root).as_posix()
        found.append(
            Distribution(directory, relative, project["name"], project["version"], package)
        )
    return found


def changelog_version(dist: Distribution) -> str | None:
    """The newest version entry of the distribution's CHANGELOG.md ([Unreleased] skipped)."""
    path = dist.directory / "CHANGELOG.md"
    if not path.is_file():
        return None
    match = CHANGELOG_VERSION.search(path.read_text(encoding="utf-8"))
    return match["version"] if match else None


def package_version(dist: Distribution) -> str | None:
    """``__version__`` as written in the package's ``__init__.py``, if it has one."""
    init = dist.directory / "src" / dist.package / "__init__.py"
    if not init.is_file():
        return None
    match = re.search(r'^__version__ = "([^"]+)"', init.read_text(encoding="utf-8"), re.M)
    return match[1] if match else None


def dir_for_tag(tag: str, dists: list[Distribution]) -> Distribution:
    """The distribution a tag releases; :class:`ReleaseError` if none or not its version."""
    match = TAG.match(tag)
    if match is None:
        raise ReleaseError(f"{tag!r} is not a release tag: expected <name>-v<version>")
    named = [d for d in dists if d.name == match["name"]]
    if not named:
        known = ", ".join(d.name for d in dists)
        raise ReleaseError(f"tag {tag!r} names no distribution here (known: {known})")
    (dist,) = named
    if dist.version != match["version"]:
        raise ReleaseError(
            f"tag {tag!r} says version {match['version']}, but {dist.relative}/pyproject.toml "
            f"says {dist.version}: bump the version first, or tag {dist.tag}"
        )
    return dist


def check_consistency(dists: list[Distribution]) -> list[str]:
    """Step 1: every problem found, one line each (an empty list when all is well)."""
    problems = []
    names = [d.name for d in dists]
    for dist in dists:
        where = dist.relative
        if names.count(dist.name) > 1:
            problems.append(f"{where}: the name {dist.name} is used by another directory too")
            continue
        top = changelog_version(dist)
        if top is None:
            problems.append(f"{where}/CHANGELOG.md: missing, or no '## [X.Y.Z] - date' entry")
        elif top != dist.version:
            problems.append(
                f"{where}: pyproject.toml says {dist.version}, the newest CHANGELOG.md "
                f"entry is {top}"
            )
        written = package_version(dist)
        if written is not None and written != dist.version:
            problems.append(
                f"{where}: __version__ is {written}, pyproject.toml says {dist.version}"
            )
        try:  # the tag must parse back to this distribution (names are unique, above)
            dir_for_tag(dist.tag, dists)
        except ReleaseError as exc:
            problems.append(f"{where}: {exc}")
    return problems


# -- building and checking ---------------------------------------------------------------


def run(*cmd: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Run a command, echo it, and return its stdout; a failure stops the release."""
    printable = " ".join(str(part) for part in cmd)
    print(f"$ {printable}", flush=True)
    done = subprocess.run(
        [str(part) for part in cmd], env=env, cwd=cwd, text=True, stdout=subprocess.PIPE
    )
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        raise ReleaseError(f"failed with exit status {done.returncode}: {printable}")
    return done.stdout


def build(dists: list[Distribution], wheelhouse: Path) -> list[Path]:
    """Step 2: sdists and wheels of ours, then wheels of every dependency; ours returned."""
    installer = ["--installer=uv"] if shutil.which("uv") else []
    for dist in dists:
        run(sys.executable, "-m", "build", *installer, "--outdir", wheelhouse, dist.directory)
    ours = sorted(p for p in wheelhouse.iterdir() if p.suffix == ".whl" or p.name.endswith(".gz"))
    # Our wheels are named as files, so pip takes exactly them, never an index's release
    # of the same name; what they depend on comes from the index as wheels (or is built).
    wheels = [p for p in ours if p.suffix == ".whl"]
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", wheelhouse, *wheels)
    return ours


def wheel_metadata(wheel: Path) -> email.message.Message:
    """The METADATA of a wheel, parsed as the core metadata spec says (email headers)."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))


def metadata_problems(wheel: Path) -> list[str]:
    """What the wheel's metadata lacks of what a release needs, one line each."""
    meta = wheel_metadata(wheel)
    classifiers = meta.get_all("Classifier") or []
    expected = [f"Programming Language :: Python :: {v}" for v in PYTHONS] + ["Typing :: Typed"]
    problems = [f"no classifier {c!r}" for c in expected if c not in classifiers]
    if not any(c.startswith("Development Status :: ") for c in classifiers):
        problems.append("no 'Development Status' classifier")
    if any(c.startswith("License :: ") for c in classifiers):
        problems.append("a 'License ::' classifier beside License-Expression (PyPI refuses it)")
    if not meta.get("License-Expression"):
        problems.append('no License-Expression (license = "SPDX" in pyproject.toml)')
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
    for license_file in meta.get_all("License-File") or []:
        if not any(n.endswith(f".dist-info/licenses/{license_file}") for n in files):
            problems.append(f"License-File {license_file} is not in the wheel")
    if not meta.get_all("License-File"):
        problems.append("no License-File (license-files in pyproject.toml)")
    if meta.get("Requires-Python") != f">={PYTHONS[0]}":
        problems.append(f"Requires-Python is {meta.get('Requires-Python')!r}, not '>={PYTHONS[0]}'")
    urls = meta.get_all("Project-URL") or []
    for label in ("Source", "Changelog", "Issues"):
        if not any(url.split(",")[0].strip().lower() == label.lower() for url in urls):
            problems.append(f"no project URL {label!r}")
    if meta.get("Description-Content-Type") != "text/markdown" or not meta.get_payload():
        problems.append("no Markdown readme as the long description")
    return [f"{wheel.name}: {problem}" for problem in problems]


def sdist_problems(sdist: Path) -> list[str]:
    """What an sdist lacks: its license, readme and changelog at the top of its tree."""
    with tarfile.open(sdist) as archive:
        top = {name.split("/", 1)[1] for name in archive.getnames() if name.count("/") == 1}
    wanted = ("LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml")
    return [f"{sdist.name}: no {name}" for name in wanted if name not in top]


def check(ours: list[Path]) -> None:
    """Step 3: twine's strict check, then the metadata and files a release needs."""
    run(sys.executable, "-m", "twine", "check", "--strict", *ours)
    problems = [line for p in ours if p.suffix == ".whl" for line in metadata_problems(p)]
    problems += [line for p in ours if p.name.endswith(".tar.gz") for line in sdist_problems(p)]
    if problems:
        raise ReleaseError("incomplete metadata:\n  " + "\n  ".join(problems))


def install_and_run(dists: list[Distribution], wheelhouse: Path) -> None:
    """Step 4: a fresh venv from the wheelhouse alone, then toolplug in it."""
    # pip's configuration files and PIP_* variables could add an index or find-links
    # folders: without them, whatever the wheelhouse lacks fails the install.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TOOLPLUG_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    with tempfile.TemporaryDirectory(prefix="toolplug-release-") as tmp:
        venv = Path(tmp) / "venv"
        run(sys.executable, "-m", "venv", venv)
        python = venv / "bin" / "python"
        names = [d.name for d in dists]
        run(python, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", wheelhouse,
            *names, env=env)  # fmt: skip
        toolplug = venv / "bin" / "toolplug"
        # From an empty folder, so that nothing of the checkout is importable.
        listing = run(toolplug, "plugins", "--check", "--json", env=env, cwd=Path(tmp))
        loaded = {r["distribution"]: r["status"] for r in json.loads(listing)}
        missing = [n for n in names[1:] if loaded.get(n) != "ok"]
        if missing:
            raise ReleaseError(f"not loaded from the wheelhouse: {', '.join(missing)}")
        print(run(toolplug, "plugins", "--check", env=env, cwd=Path(tmp)), end="")
        print(run(toolplug, "call", "think", '{"thought": "x"}', env=env, cwd=Path(tmp)), end="")


def release(wheelhouse: Path) -> None:
    """All four steps; the wheelhouse is emptied first, so it holds this build only."""
    dists = distributions()
    problems = check_consistency(dists)
    if problems:
        raise ReleaseError("versions disagree:\n  " + "\n  ".join(problems))
    if wheelhouse.exists():
        shutil.rmtree(wheelhouse)
    wheelhouse.mkdir(parents=True)
    ours = build(dists, wheelhouse)
    check(ours)
    install_and_run(dists, wheelhouse)
    print(f"{len(dists)} distributions released into {wheelhouse}, "
          f"{sum(1 for _ in wheelhouse.glob('*.whl'))} wheels in all")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelhouse", type=Path, default=ROOT / "dist")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("check", help="only check versions, changelogs and tags")
    tag = sub.add_parser("dir-for-tag", help="print the directory a release tag builds")
    tag.add_argument("tag")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            problems = check_consistency(distributions())
            for line in problems:
                print(line, file=sys.stderr)
            return 1 if problems else 0
        if args.command == "dir-for-tag":
            dists = distributions()
            dist = dir_for_tag(args.tag, dists)
            mine = (dist.relative + ":", dist.relative + "/")
            problems = [p for p in check_consistency(dists) if p.startswith(mine)]
            if problems:
                raise ReleaseError("\n".join(problems))
            print(dist.relative)
            return 0
        release(args.wheelhouse.resolve())
    except ReleaseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
