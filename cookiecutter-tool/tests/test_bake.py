"""What the template writes: a complete distribution in the house shape, for each kind."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml
from actionlint import actionlint_command
from conftest import REPO, TEMPLATE, VARIANTS, assigned_constant

COMMON_FILES = [
    "pyproject.toml",
    "README.md",
    ".gitignore",
    ".github/workflows/tests.yml",
    "src/toolplug_word_count/__init__.py",
    "src/toolplug_word_count/tool.py",
    "src/toolplug_word_count/types.py",
    "src/toolplug_word_count/py.typed",
    "tests/test_conformance.py",
    "tests/test_word_count.py",
]
EXPECTED_FILES = {
    "function": COMMON_FILES,
    "class": [*COMMON_FILES, "src/toolplug_word_count/executor.py"],
}


@pytest.fixture(params=VARIANTS)
def kind(request: pytest.FixtureRequest) -> str:
    """Each kind of tool the template makes."""
    return str(request.param)


@pytest.fixture
def project(kind: str, bake: Any) -> Path:
    """The template baked with its defaults, once per kind."""
    result = bake(kind=kind)
    assert result.exit_code == 0, result.exception
    return Path(result.project_path)


def top_level_names(path: Path) -> set[str]:
    """Classes, functions and variables a module defines at top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_file_of_the_house_shape_is_there(kind: str, project: Path) -> None:
    baked = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())

    assert baked == sorted(EXPECTED_FILES[kind])


def test_no_template_syntax_is_left_and_python_parses(project: Path) -> None:
    for path in project.rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        assert "cookiecutter" not in text, path
        assert "{%" not in text, path
        assert text.replace("${{", "").count("{{") == 0, path
        if path.suffix == ".py":
            ast.parse(text, filename=str(path))


def test_pyproject_declares_the_plugin(project: Path) -> None:
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))

    assert meta["build-system"]["build-backend"] == "hatchling.build"
    assert meta["project"]["name"] == "toolplug-word-count"
    assert meta["project"]["version"] == "0.1.0"
    assert meta["project"]["requires-python"] == ">=3.10"
    assert meta["project"]["dependencies"] == ["toolplug>=0.2,<0.3"]
    assert meta["project"]["entry-points"]["toolplug"] == {"word_count": "toolplug_word_count"}
    test_extra = " ".join(meta["project"]["optional-dependencies"]["test"])
    for needed in ("pytest>=8", "pytest-asyncio", "openai", "anthropic", "mcp"):
        assert needed in test_extra
    assert meta["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [
        "src/toolplug_word_count"
    ]


def test_the_kinds_differ_where_they_should(kind: str, project: Path) -> None:
    package = project / "src" / "toolplug_word_count"
    types = top_level_names(package / "types.py")
    tool_source = (package / "tool.py").read_text(encoding="utf-8")
    hook = (package / "__init__.py").read_text(encoding="utf-8")
    conformance = (project / "tests" / "test_conformance.py").read_text(encoding="utf-8")

    assert {"WordCountObservation", "DESCRIPTION"} <= types
    assert "class TestWordCountConformance(ToolConformance)" in conformance
    assert "failing_call = " in conformance
    if kind == "class":
        assert "WordCountAction" in types
        assert "WordCountTool" in top_level_names(package / "tool.py")
        assert "def create(" in tool_source
        assert "def close(self)" in (package / "executor.py").read_text(encoding="utf-8")
        assert 'register(WordCountTool, name="word_count")' in hook
    else:
        assert "WordCountAction" not in types  # @tool makes the action from the signature
        assert "@tool(" in tool_source
        assert "def word_count(text: str) -> WordCountObservation:" in tool_source
        assert "register(word_count)" in hook


def package_imports(path: Path, package: str) -> set[str]:
    """The modules of ``package`` that a module imports, by their last name part."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith(f"{package}."):
                imported.add(name.split(".")[1])
    return imported


def test_each_module_imports_only_the_ones_below_it(kind: str, project: Path) -> None:
    # types -> (executor ->) tool -> __init__: the plugin shape, with no import cycle.
    package = project / "src" / "toolplug_word_count"
    modules = {"types", "executor", "tool"}

    def imports(module: str) -> set[str]:
        return package_imports(package / f"{module}.py", "toolplug_word_count") & modules

    assert imports("types") == set()
    if kind == "class":
        assert imports("executor") == {"types"}
        assert imports("tool") == {"types", "executor"}
        assert imports("__init__") == {"types", "executor", "tool"}
    else:
        assert imports("tool") == {"types"}
        assert imports("__init__") == {"types", "tool"}


def workflow_of(project: Path) -> dict[Any, Any]:
    return dict(yaml.safe_load((project / ".github/workflows/tests.yml").read_text("utf-8")))


def install_step(project: Path) -> str:
    (step,) = [
        s
        for s in workflow_of(project)["jobs"]["test"]["steps"]
        if "pip install" in s.get("run", "")
    ]
    return str(step["run"])


def test_the_workflow_runs_the_tests_on_github_actions(project: Path) -> None:
    workflow = workflow_of(project)
    # YAML 1.1 reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    job = workflow["jobs"]["test"]
    runs = "\n".join(step.get("run", "") for step in job["steps"])

    assert set(triggers) == {"push", "pull_request"}
    assert job["strategy"]["matrix"]["python-version"] == ["3.10", "3.11", "3.12", "3.13"]
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    # setup-python's pip cache needs a file to key on; there is no requirements.txt
    assert setup["with"]["cache-dependency-path"] == "pyproject.toml"
    assert workflow["env"]["TOOLPLUG_SOURCE"] == "index"
    assert install_step(project) == "python -m pip install '.[test]'"
    assert "python -m pytest" in runs
    assert "toolplug plugins --check --plugins word_count" in runs
    assert "toolplug call word_count" in runs


def wheelhouse_with_a_toolplug_wheel(folder: Path) -> Path:
    """A folder that looks like a wheelhouse (the install tests build a real one)."""
    folder.mkdir()
    (folder / "toolplug-0.2.1-py3-none-any.whl").write_bytes(b"")
    return folder


@pytest.mark.parametrize(
    ("source", "kind_of_source", "command"),
    [
        ("checkout", "checkout", "python -m pip install \"$TOOLPLUG_SOURCE/core\" '.[test]'"),
        (
            "wheelhouse",
            "wheelhouse",
            "python -m pip install --find-links \"$TOOLPLUG_SOURCE\" '.[test]'",
        ),
        (
            "git+https://github.com/toolplug/toolplug",
            "git",
            "python -m pip install \"toolplug @ $TOOLPLUG_SOURCE#subdirectory=core\" '.[test]'",
        ),
        (
            "https://example.org/toolplug/wheels/",
            "url",
            "python -m pip install --find-links \"$TOOLPLUG_SOURCE\" '.[test]'",
        ),
    ],
)
def test_the_workflow_installs_toolplug_from_the_answer(
    bake: Any, tmp_path: Path, source: str, kind_of_source: str, command: str
) -> None:
    expected = source
    if source == "checkout":
        expected = source = str(REPO)
    elif source == "wheelhouse":
        expected = source = str(wheelhouse_with_a_toolplug_wheel(tmp_path / "wheels"))

    result = bake(toolplug_source=source)

    assert result.exit_code == 0, result.exception
    project = Path(result.project_path)
    assert workflow_of(project)["env"]["TOOLPLUG_SOURCE"] == expected
    assert install_step(project) == command


def test_a_relative_path_is_made_absolute(bake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # cookiecutter resolves it where it runs: the folder the author typed it in
    monkeypatch.chdir(REPO / "core")

    result = bake(toolplug_source="..")

    assert result.exit_code == 0, result.exception
    assert workflow_of(Path(result.project_path))["env"]["TOOLPLUG_SOURCE"] == str(REPO)


@pytest.mark.parametrize(
    "source", ["index", "checkout", "wheelhouse", "git+https://github.com/toolplug/toolplug"]
)
def test_actionlint_passes_the_baked_workflow(
    bake: Any, kind: str, tmp_path: Path, source: str
) -> None:
    command, what = actionlint_command()
    if command is None:
        pytest.skip(what)
    if source == "checkout":
        source = str(REPO)
    elif source == "wheelhouse":
        source = str(wheelhouse_with_a_toolplug_wheel(tmp_path / "wheels"))
    result = bake(kind=kind, toolplug_source=source)
    workflow = Path(result.project_path) / ".github" / "workflows" / "tests.yml"

    done = subprocess.run([*command, str(workflow)], capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, f"{what}:\n{done.stdout}{done.stderr}"


def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    # the check above can fail: a misspelt matrix key is reported
    command, what = actionlint_command()
    if command is None:
        pytest.skip(what)
    workflow = tmp_path / "tests.yml"
    workflow.write_text(
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n"
        "        python-version: ['3.12']\n    steps:\n      - run: echo ${{ matrix.pyton }}\n"
    )

    done = subprocess.run([*command, str(workflow)], capture_output=True, text=True, timeout=120)

    assert done.returncode != 0
    assert "pyton" in done.stdout


def test_the_readmes_name_only_files_that_exist(kind: str, project: Path) -> None:
    # The template's README names its own files; the baked README names the project's.
    template_readme = (TEMPLATE / "README.md").read_text(encoding="utf-8")
    for name in re.findall(r"^\| `([^`]+)` \|", template_readme, flags=re.MULTILINE):
        assert (TEMPLATE / name).exists(), f"cookiecutter-tool/README.md names {name}"
    baked_readme = (project / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:src|tests|\.github)/[^`]*?)`", baked_readme))
    assert named, "the baked README names no file"
    for name in named:
        assert (project / name).exists(), f"the baked README names {name}"


@pytest.mark.parametrize(
    "description",
    [
        'Say "hi" to C:\\Users and it\'s fine',
        'Ends with three quotes """',
        "Zählt Wörter 🙂 in 日本語 text\ttoo",
    ],
)
def test_any_characters_in_answers_survive(bake: Any, description: str) -> None:
    author = 'Ann "the dev" O\'Neil \\ 🙂'
    result = bake(description=description, author_name=author)

    assert result.exit_code == 0, result.exception
    project = Path(result.project_path)
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["description"] == description
    assert meta["project"]["authors"] == [{"name": author, "email": "you@example.com"}]
    package = project / "src" / "toolplug_word_count"
    assert assigned_constant(package / "types.py", "DESCRIPTION") == description
    init = ast.parse((package / "__init__.py").read_text("utf-8"))
    docstring = ast.get_docstring(init, clean=False)
    assert docstring == f"toolplug-word-count: {description}"


def test_names_with_digits_make_valid_class_names(bake: Any) -> None:
    result = bake(tool_name="ocr2_reader", kind="class")

    package = Path(result.project_path) / "src" / "toolplug_ocr2_reader"
    assert {"Ocr2ReaderAction", "Ocr2ReaderObservation"} <= top_level_names(package / "types.py")
    assert "Ocr2ReaderTool" in top_level_names(package / "tool.py")


def test_a_keyword_tool_name_makes_a_valid_function(bake: Any) -> None:
    result = bake(tool_name="class", kind="function")

    package = Path(result.project_path) / "src" / "toolplug_class"
    assert "class_" in top_level_names(package / "tool.py")
    assert 'name="class"' in (package / "tool.py").read_text(encoding="utf-8")
