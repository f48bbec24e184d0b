"""What the template writes: a complete distribution in the house shape, for each kind."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml
from conftest import VARIANTS, assigned_constant

EXPECTED_FILES = [
    "pyproject.toml",
    "README.md",
    ".gitignore",
    ".github/workflows/tests.yml",
    "src/toolplug_word_count/__init__.py",
    "src/toolplug_word_count/executor.py",
    "src/toolplug_word_count/tool.py",
    "src/toolplug_word_count/types.py",
    "src/toolplug_word_count/py.typed",
    "tests/test_conformance.py",
    "tests/test_word_count.py",
]


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


def test_every_file_of_the_house_shape_is_there(project: Path) -> None:
    baked = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())

    assert baked == sorted(EXPECTED_FILES)


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
    tool = top_level_names(package / "tool.py")
    executor = (package / "executor.py").read_text(encoding="utf-8")
    hook = (package / "__init__.py").read_text(encoding="utf-8")

    assert {"WordCountAction", "WordCountObservation", "DESCRIPTION"} <= types
    assert "ANNOTATIONS" in tool
    if kind == "stateful":
        assert "WordCountTool" in tool
        assert "word_count_tool" not in tool
        assert "def create(" in (package / "tool.py").read_text(encoding="utf-8")
        assert "def close(self)" in executor
        assert 'register(WordCountTool, name="word_count")' in hook
    else:
        assert "WordCountTool" not in tool
        assert "word_count_tool" in tool
        assert "def close(self)" not in executor
        assert "register(word_count_tool)" in hook
    assert "class TestWordCountConformance(ToolConformance)" in (
        project / "tests" / "test_conformance.py"
    ).read_text(encoding="utf-8")


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


def test_each_module_imports_only_the_ones_below_it(project: Path) -> None:
    # types -> executor -> tool -> __init__: the plugin shape, with no import cycle.
    package = project / "src" / "toolplug_word_count"
    modules = {"types", "executor", "tool"}

    def imports(module: str) -> set[str]:
        return package_imports(package / f"{module}.py", "toolplug_word_count") & modules

    assert imports("types") == set()
    assert imports("executor") == {"types"}
    assert imports("tool") == {"types", "executor"}
    assert imports("__init__") == {"types", "executor", "tool"}


def test_the_workflow_runs_the_tests_on_github_actions(project: Path) -> None:
    workflow = yaml.safe_load((project / ".github/workflows/tests.yml").read_text("utf-8"))
    # YAML 1.1 reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    job = workflow["jobs"]["test"]
    runs = "\n".join(step.get("run", "") for step in job["steps"])

    assert set(triggers) == {"push", "pull_request"}
    assert job["strategy"]["matrix"]["python-version"] == ["3.10", "3.11", "3.12", "3.13"]
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    assert "python -m pip install '.[test]'" in runs
    assert "python -m pytest" in runs
    assert "toolplug call word_count" in runs


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
    result = bake(tool_name="ocr2_reader", kind="stateful")

    package = Path(result.project_path) / "src" / "toolplug_ocr2_reader"
    assert {"Ocr2ReaderAction", "Ocr2ReaderObservation"} <= top_level_names(package / "types.py")
    assert "Ocr2ReaderTool" in top_level_names(package / "tool.py")
