"""Every code block of the docs runs here, or is marked as a fragment.

The pages are ``README.md``, ``docs/**/*.md`` (new pages are picked up by the glob)
and the template's two READMEs. A block is handled by its language:

- ``python``: a page's blocks run in order in one fresh interpreter, sharing one
  namespace, as a reader who pastes them one after the other would; a traceback
  names the page and its line.
- ``console``/``bash``/``shell``/``sh``: each command runs in bash in a workspace of
  its own. Where the page shows output (after a ``$ command`` line) it must match
  (see :func:`docs_blocks.output_matches`: ``...`` leaves lines or text out); a
  command whose output is not shown must succeed.
- ``json``, ``toml``, ``yaml``: parsed; an ``mcpServers`` file is loaded by the MCP
  plugin's config loader, and a policy by the policy loader.
- Pages in :data:`RUN_ELSEWHERE` are run whole by their package's own test instead.
- Anything else, or a block of those languages that cannot run here, carries the
  word ``fragment`` in its info string, and the prose says why. A block that is
  neither fails :func:`test_every_block_runs_or_is_a_fragment`.

Why a collector of our own: pytest-examples collects Python blocks only, and
pytest-markdown-docs runs Python (and its own ``notest`` marker); the docs need bash
blocks with output, data blocks, one ``fragment`` convention for all languages and a
failure for any block that is neither run nor marked.

Commands and examples run in a *page venv*: a virtual environment layered over the
one running these tests (it sees every installed package, and what a page installs
goes into it alone), so ``pip install``, plugins that a page writes and the demo
plugins of ``tests/data`` stay out of the test environment. What a page needs before
its blocks run (a plugin, a file, a provider) is in :data:`PAGES`, written once here.
Examples that call a model provider run through the real SDKs against
:mod:`fake_providers` on 127.0.0.1.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from docs_blocks import ROOT, Block, blocks, commands, output_matches, pages
from fake_providers import FakeProviders, fake_providers, provider_env

RUN = {"python", "py", "console", "bash", "shell", "sh"}
DATA = {"json", "toml", "yaml", "yml"}
TEMPLATE_README = "cookiecutter-tool/{{cookiecutter.project_slug}}/README.md"


@dataclass(frozen=True)
class DocPlugin:
    """A page's Python block installed as a plugin distribution, as pip lays one out."""

    block: int  # the index of the page's Python block holding the plugin module
    entry_point: str
    distribution: str
    version: str = "0.1.0"


@dataclass(frozen=True)
class Page:
    """What one page's blocks need that the page itself does not show."""

    plugins: tuple[DocPlugin, ...] = ()
    wheels: tuple[str, ...] = ()  # demo plugins of tests/data (keys of conftest's wheels)
    files: dict[str, str] = field(default_factory=dict)  # written into the workspace
    # Code run before each Python block that contains the key (the setup it needs).
    preludes: dict[str, str] = field(default_factory=dict)
    providers: tuple[str, ...] = ()  # the fake APIs the page's loops must complete
    tool_output: str = ""  # what the tool results sent back to each of them must hold
    # Repository folders linked into the workspace, for `pip install ./plugins/x` and the like.
    links: tuple[str, ...] = ("core", "plugins", "cookiecutter-tool")
    # workspace file -> the language of the page's block written there (its first one)
    block_files: dict[str, str] = field(default_factory=dict)
    home_files: dict[str, str] = field(default_factory=dict)  # written into $HOME
    requires: tuple[str, ...] = ()  # programs the examples need (skipped without them)


PROJECT = {
    "app/main.py": "print('the largest file here')\n" * 20,
    "app/util.py": "X = 1\n",
    "tests/test_app.py": "def test_app():\n    assert True\n",
    "README.md": "# project\n\nA small project for the docs' examples.\n",
}

LOOP_SETUP = """
from pydantic import BaseModel
from openai import OpenAI
from toolplug import Toolset

class Answer(BaseModel):
    python_files: int
    largest: str

client = OpenAI()
task = "How many Python files are in this project, and which is the largest?"
tools = Toolset.load(workspace=".")
"""

# A server with one prompt, for the page's `toolplug mcp prompts` (the "i" server).
GREET_SERVER = """
from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("i")


@mcp.prompt
def greet(name: str = Field(description="Who to greet.")) -> str:
    \"\"\"Greet someone by name.\"\"\"
    return f"Say hello to {name}."


mcp.run(show_banner=False, log_level="WARNING")
"""

MCP_CONFIG = json.dumps(
    {
        "mcpServers": {
            "time": {"command": "mcp-server-time", "prefix": False},
            "i": {"command": "python", "args": ["greet_server.py"]},
        }
    }
)

PAGES: dict[str, Page] = {
    "docs/presets.md": Page(
        plugins=(DocPlugin(2, "gemini_presets", "toolplug-gemini-presets"),),
    ),
    "README.md": Page(
        plugins=(DocPlugin(0, "word_count", "toolplug-word-count"),),
    ),
    "docs/agent-loops.md": Page(
        files=PROJECT,
        preludes={"client.responses.create(": LOOP_SETUP, "tools.compose(": LOOP_SETUP},
        providers=("openai", "anthropic", "responses"),
        tool_output="app/main.py",  # glob found the project's files
    ),
    "docs/formats.md": Page(providers=("gemini", "bedrock"), tool_output="Lisbon: sunny"),
    "docs/cli.md": Page(wheels=("demo", "hostile", "typo"), files=PROJECT),
    "docs/concepts.md": Page(),
    "docs/index.md": Page(files=PROJECT),
    "docs/safety.md": Page(files=PROJECT, block_files={"policy.toml": "toml"}, requires=("bwrap",)),
    "docs/mcp/client.md": Page(
        files={"mcp.json": MCP_CONFIG, "greet_server.py": GREET_SERVER, **PROJECT}
    ),
    "docs/tools/bash.md": Page(
        files=PROJECT,
        home_files={".gitconfig": "[user]\n\tname = Docs\n"},
        requires=("bwrap",),
    ),
    "docs/tools/glob.md": Page(files=PROJECT),
    "docs/tools/file-editor.md": Page(files={"project/README.md": "hello\n"}),
    "docs/tools/finish.md": Page(),
    "docs/tools/think.md": Page(),
    "docs/writing-a-tool.md": Page(
        plugins=(DocPlugin(0, "slugify", "toolplug-slugify"),),
    ),
}


#: Pages whose blocks a package's own tests run as a whole (in order, in one workspace,
#: comparing every output shown): page -> that test. They are left out here.
RUN_ELSEWHERE = {
    "docs/tools/grep.md": "plugins/grep/tests/test_docs.py",
}


def every_block() -> list[Block]:
    return [block for page in pages() if page not in RUN_ELSEWHERE for block in blocks(page)]


def test_pages_run_elsewhere_are_run_there() -> None:
    for page, test in RUN_ELSEWHERE.items():
        assert Path(page).name in (ROOT / test).read_text(), f"{test} does not run {page}"


def _ids(block: Block) -> str:
    return block.where


# -- the rule -------------------------------------------------------------------------


def test_every_block_runs_or_is_a_fragment() -> None:
    unmarked = [
        f"{b.where}: ```{b.info}"
        for b in every_block()
        if not b.fragment and b.lang not in RUN | DATA
    ]
    assert not unmarked, (
        "These blocks are neither run nor marked: give them a language this harness "
        "runs (python, console, bash, json, toml, yaml), or add `fragment` to the info "
        "string and say why in the prose:\n" + "\n".join(unmarked)
    )


def test_the_collector_finds_the_pages() -> None:
    found = pages()
    assert {"README.md", "docs/cli.md", "docs/formats.md", TEMPLATE_README} <= set(found)
    assert sum(len(blocks(page)) for page in found) > 50


# -- page venvs -------------------------------------------------------------------------


class PageEnv:
    """A venv layered over the running one, a workspace and a home, for one page."""

    def __init__(self, root: Path) -> None:
        self.venv = root / "venv"
        self.workspace = root / "workspace"
        self.home = root / "home"
        self.workspace.mkdir()
        self.home.mkdir()
        venv.EnvBuilder(with_pip=False, symlinks=True).create(self.venv)
        self.bin = self.venv / "bin"
        self.python = self.bin / "python"
        purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        self.site = Path(
            subprocess.run(
                [str(self.python), "-c", purelib], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        parent = sysconfig.get_paths()["purelib"]
        # addsitedir, not a plain path line: the parent's own .pth files (editable
        # installs) must be read too.
        (self.site / "_docs_parent.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
        self._scripts()

    def _scripts(self) -> None:
        """The parent's commands (toolplug, pip, pytest...), run by this venv's Python."""
        for entry in importlib.metadata.entry_points(group="console_scripts"):
            script = self.bin / entry.name
            if script.exists() or not entry.attr:
                continue
            load = f"EntryPoint({entry.name!r}, {entry.value!r}, 'console_scripts').load()"
            script.write_text(
                f"#!{self.python}\nimport sys\nfrom importlib.metadata import EntryPoint\n"
                f"sys.exit({load}())\n"
            )
            script.chmod(0o755)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("TOOLPLUG_PLUGINS", "PYTHONPATH", "VIRTUAL_ENV", "TOOLPLUG_MCP_CONFIG")
            and not k.startswith("PYTEST_")
        }
        env.update(
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
            VIRTUAL_ENV=str(self.venv),
            HOME=str(self.home),
            NO_COLOR="1",
            COLUMNS="200",
        )
        env.update(extra or {})
        return env

    def install_wheel(self, wheel: Path) -> None:
        subprocess.run(
            [str(self.python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
            check=True,
            timeout=300,
            env=self.env(),
        )

    def install_module(self, plugin: DocPlugin, source: str) -> None:
        """Install a page's block as a one-module distribution with its entry point."""
        module = plugin.distribution.replace("-", "_") + "_example"
        (self.site / f"{module}.py").write_text(source)
        name = plugin.distribution.replace("-", "_")
        info = self.site / f"{name}-{plugin.version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {plugin.distribution}\nVersion: {plugin.version}\n"
        )
        (info / "entry_points.txt").write_text(f"[toolplug]\n{plugin.entry_point} = {module}\n")
        (info / "RECORD").write_text("")


@pytest.fixture(scope="session")
def providers() -> Iterator[FakeProviders]:
    with fake_providers() as fake:
        yield fake


@pytest.fixture
def page_env(tmp_path: Path, request: pytest.FixtureRequest) -> Callable[[str], PageEnv]:
    def make(page: str) -> PageEnv:
        setup = PAGES.get(page, Page())
        for program in setup.requires:
            if shutil.which(program) is None:
                pytest.skip(f"{page} needs {program}, which is not installed")
        env = PageEnv(tmp_path)
        if setup.wheels:
            wheels = request.getfixturevalue("wheels")
            for key in setup.wheels:
                env.install_wheel(wheels[key])
        python = [b for b in blocks(page) if b.lang in ("python", "py")]
        for plugin in setup.plugins:
            env.install_module(plugin, python[plugin.block].source)
        for name, text in setup.files.items():
            path = env.workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for name, lang in setup.block_files.items():
            source = next(b.source for b in blocks(page) if b.lang == lang)
            (env.workspace / name).write_text(source)
        for name, text in setup.home_files.items():
            (env.home / name).write_text(text)
        for folder in setup.links:
            (env.workspace / folder).symlink_to(ROOT / folder)
        return env

    return make


# -- python ---------------------------------------------------------------------------

RUNNER = """
import sys
namespace = {"__name__": "__main__"}
for where, line, prelude, source in BLOCKS:
    if prelude:
        exec(compile(prelude, f"<setup of {where}>", "exec"), namespace)
    print(f"--- {where}", flush=True)
    # Padded with newlines, so a traceback names the page's own line.
    exec(compile("\\n" * line + source, PAGE, "exec"), namespace)
"""


def python_pages() -> list[str]:
    return [
        page
        for page in pages()
        if page != TEMPLATE_README
        and any(b.lang in ("python", "py") and not b.fragment for b in blocks(page))
    ]


@pytest.mark.parametrize("page", python_pages())
def test_python_blocks(
    page: str, page_env: Callable[[str], PageEnv], providers: FakeProviders
) -> None:
    env = page_env(page)
    setup = PAGES.get(page, Page())
    python = [b for b in blocks(page) if b.lang in ("python", "py")]
    run = [
        (b.where, b.line, "".join(c for k, c in setup.preludes.items() if k in b.source), b.source)
        for i, b in enumerate(python)
        if not b.fragment and i not in {p.block for p in setup.plugins}
    ]
    if not run:
        pytest.skip("the page's only Python blocks are plugins, run through its other blocks")
    script = f"BLOCKS = {run!r}\nPAGE = {str(ROOT / page)!r}\n" + RUNNER
    before = len(providers.exchanges)
    ran = subprocess.run(
        [str(env.python), "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=env.workspace,
        env=env.env(provider_env(providers.url)),
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 0, f"{ran.stdout[-3000:]}\n{ran.stderr[-6000:]}"
    for api in setup.providers:
        answered = [e for e in providers.exchanges[before:] if e.api == api and e.results]
        assert answered, f"no {api} loop of {page} sent a tool result back"
        sent = json.dumps([e.results for e in answered])
        assert setup.tool_output in sent, f"the {api} tool results lack the output: {sent}"


# -- console --------------------------------------------------------------------------

MARK = "\x1edocs-harness-command-"


def console_blocks() -> list[Block]:
    return [
        b
        for b in every_block()
        if b.lang in ("console", "bash", "shell", "sh")
        and not b.fragment
        and b.page != TEMPLATE_README
    ]


#: Commands whose shown output is right but the code is not yet: command -> the reason.
#: Such a block is an expected failure; once the code is fixed it fails as unexpectedly
#: passing, so the entry is removed then.
KNOWN_BROKEN: dict[str, str] = {}


def run_console(block: Block, cwd: Path, env: dict[str, str]) -> None:
    """Run a console block's commands in one bash and check each shown output."""
    steps = commands(block)
    script = ["exec 2>&1"]
    for i, step in enumerate(steps):
        script.append(step.text)
        script.append(f'__s=$?; printf "\\n{MARK}{i} %s\\n" "$__s"; (exit $__s)')
    ran = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=env,
        input="\n" * 20,  # a person pressing Enter at any prompt
    )
    output = ran.stdout
    for i, step in enumerate(steps):
        before, sep, output = output.partition(f"\n{MARK}{i} ")
        assert sep, f"{block.where}: `{step.text}` did not finish:\n{before[-3000:]}"
        status, _, output = output.partition("\n")
        if step.text in KNOWN_BROKEN:
            assert not output_matches(step.shown or "", before), (
                f"{block.where}: `{step.text}` works now: remove it from KNOWN_BROKEN"
            )
            pytest.xfail(KNOWN_BROKEN[step.text])
        if step.shown is not None:
            assert output_matches(step.shown, before), (
                f"{block.where}: `{step.text}` printed\n{before}\nbut the page shows\n{step.shown}"
            )
        else:
            assert status == "0", f"{block.where}: `{step.text}` exited {status}:\n{before[-3000:]}"


@pytest.mark.parametrize("block", console_blocks(), ids=_ids)
def test_console_block(block: Block, page_env: Callable[[str], PageEnv]) -> None:
    env = page_env(block.page)
    run_console(block, env.workspace, env.env())


# -- the template's README, baked -------------------------------------------------------


@pytest.fixture(scope="module")
def baked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cookiecutter.main import cookiecutter

    out = tmp_path_factory.mktemp("baked")
    return Path(
        cookiecutter(
            str(ROOT / "cookiecutter-tool"),
            no_input=True,
            output_dir=str(out),
            extra_context={"kind": "class"},
        )
    )


def test_the_baked_readme(baked: Path, page_env: Callable[[str], PageEnv]) -> None:
    """The template's README, as baked (stateful, so every block is there), runs."""
    env = page_env(TEMPLATE_README)
    # What the README's Install section says, before its other blocks.
    subprocess.run(
        [str(env.python), "-m", "pip", "install", "--quiet", "-e", ".[test]"],
        cwd=baked,
        env=env.env(),
        check=True,
        timeout=600,
    )
    page = "README.md of a baked plugin"
    found = blocks(page, (baked / "README.md").read_text())
    assert len(found) == len(blocks(TEMPLATE_README)), "baking lost or added a block"
    ran = 0
    for block in found:
        if block.fragment:
            continue
        assert block.lang in RUN, f"{block.where}: ```{block.info}"
        run_console(block, baked, env.env())
        ran += 1
    assert ran


# -- data -----------------------------------------------------------------------------


def data_blocks() -> list[Block]:
    return [b for b in every_block() if b.lang in DATA and not b.fragment]


@pytest.mark.parametrize("block", data_blocks(), ids=_ids)
def test_data_block(block: Block, tmp_path: Path) -> None:
    if block.lang == "json":
        data = json.loads(block.source)
        if isinstance(data, dict) and "mcpServers" in data:
            from toolplug_mcp.client.config import parse_servers

            assert parse_servers(data, workspace=tmp_path, env={}) is not None
    elif block.lang == "toml":
        data = tomllib.loads(block.source)
        if "rules" in data:
            import toolplug_policy.loading

            policy = toolplug_policy.loading.loads(block.source, file="policy.toml", base=tmp_path)
            assert policy.rules
    else:
        import yaml

        yaml.safe_load(block.source)


# -- safety.md's decisions ----------------------------------------------------------------


def test_the_decisions_safety_md_shows_are_the_policys(tmp_path: Path) -> None:
    """The page's table of calls (a text fragment) is what its policy decides for them."""
    from toolplug import Toolset
    from toolplug_policy.loading import loads

    found = blocks("docs/safety.md")
    policy = loads(next(b.source for b in found if b.lang == "toml"), base=tmp_path)
    table = next(b for b in found if b.source.startswith("bash: git status "))
    (tmp_path / "src").mkdir()
    (tmp_path / ".git").mkdir()
    with Toolset.load(["bash", "file_editor", "glob"], workspace=tmp_path) as tools:
        for line in table.source.splitlines():
            call, _, shown = line.partition("->")
            name, _, text = (part.strip() for part in call.partition(":"))
            decision, _, why = shown.strip().partition(" (")
            if name == "bash":
                arguments = {"command": text}
            elif name == "file_editor":
                command, _, path = text.partition(" ")
                arguments = {"command": command, "path": path}
            else:
                pattern, _, path = text.partition(" in ")
                arguments = {"pattern": pattern, **({"path": path} if path else {})}
            action = tools[name].action_type.model_validate(arguments)
            verdict = policy.decide(name, action, tmp_path)
            rules = [rule.number for rule in verdict.rules]
            assert verdict.decision == decision, f"{line}: the policy says {verdict.decision}"
            if why.startswith("rule "):
                number = int(re.match(r"rule (\d+)", why)[1])  # type: ignore[index]
                assert number in rules, f"{line}: decided by rules {rules}"
            else:
                assert why.startswith("default") and not rules, f"{line}: rules {rules}"
    assert len(table.source.splitlines()) > 10
