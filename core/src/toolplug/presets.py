"""Presets: named tool sets whose members and forms depend on the model family.

Models use the tools they were trained on best. A host asks for a tool set by purpose
and model, and gets the tools that model's family does best with::

    tools = Toolset.load(preset=Preset("coding", model="gpt-5.1"))
    tools.export("responses")      # apply_patch and bash in their native Responses forms

The table has three parts, all data:

- **families**: a name, a title and globs over model names (``gpt-5*``, ``claude-*``;
  case-insensitive, matched against the whole name and against the part after its last
  ``/``, so a router's ``openrouter/openai/gpt-5.1`` is a GPT-5 too). The first family
  that matches a model is its family; plugins' families are tried before the core's
  (a plugin can single out ``gpt-5-mini`` from ``gpt-5*``), and the ``default``
  family, which matches every model, last.
- **presets**: a name and what the set is for.
- **rows**: for one preset and one family, the tools (registered tool names) and,
  per export format, which of them to declare in their native form (the names passed
  as ``Toolset.export(format, native=...)``). A family without a row in a preset
  gets the preset's ``default`` row, which every preset has.

The core's table is :data:`CORE_TABLE`, Python data rather than a TOML or JSON file:
a plugin gives its rows as Python data through the ``register_presets`` hook, so the
core's go through the same :class:`PresetData` model and the same checks; Python 3.10
has no TOML reader in its standard library (a file would mean a dependency), and JSON
takes no comments, where each row wants its reason beside it.

A plugin adds families, presets or rows with the ``register_presets`` hook (see
:mod:`toolplug.hookspecs`). One ``register`` call is added whole or not at all: a
family or preset name already taken, or a (preset, family) row already given, is a
:class:`~toolplug.PresetError` naming both sources, reported in
:attr:`PresetTable.problems` (``Toolset.load(preset=...)`` adds them to the toolset's
``problems`` and logs them, ``toolplug presets`` shows them), while the first
registration keeps the name.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolplug.errors import PresetError

if TYPE_CHECKING:
    import pluggy

    from toolplug.registry import ToolRegistry

__all__ = [
    "CORE_TABLE",
    "DEFAULT_FAMILY",
    "Family",
    "Preset",
    "PresetChoice",
    "PresetData",
    "PresetRow",
    "PresetTable",
    "preset_table",
]

_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"

#: The name of the family every model belongs to when no other matches.
DEFAULT_FAMILY = "default"


class Family(BaseModel):
    """A model family: the models it holds, by globs over their names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: A short name, used by the rows (``gpt-5``, ``claude``).
    name: str = Field(pattern=_NAME)
    #: What a person reads (``OpenAI GPT-5 family``).
    title: str = ""
    #: Globs over model names (``*``, ``?``, ``[...]``), case-insensitive.
    models: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _checked(self) -> Family:
        if any(not pattern.strip() for pattern in self.models):
            raise ValueError("a model pattern must not be empty")
        return self

    def matches(self, model: str) -> bool:
        """Whether ``model`` (or its part after the last ``/``) is in this family."""
        names = {model.lower(), model.rpartition("/")[2].lower()}
        return any(fnmatch.fnmatchcase(n, p.lower()) for n in names for p in self.models)


class PresetRow(BaseModel):
    """One preset's tools for one family, and which to declare natively per format."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: str = Field(pattern=_NAME)
    family: str = Field(default=DEFAULT_FAMILY, pattern=_NAME)
    #: The registered tool names, in the order the toolset holds them.
    tools: tuple[str, ...] = Field(min_length=1)
    #: Export format -> the tools declared in their native form there (each must be in
    #: :attr:`tools`; a tool with no native form for that format stays a function).
    native: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: Why this family gets these tools (``toolplug presets --json`` shows it).
    note: str = ""

    @model_validator(mode="after")
    def _checked(self) -> PresetRow:
        doubled = sorted({t for t in self.tools if self.tools.count(t) > 1})
        if doubled:
            raise ValueError(f"tools named twice: {', '.join(doubled)}")
        for format, names in self.native.items():
            stray = [n for n in names if n not in self.tools]
            if stray:
                raise ValueError(
                    f"native[{format!r}] names {', '.join(stray)}, which is not among "
                    f"the row's tools ({', '.join(self.tools)})"
                )
        return self


class PresetData(BaseModel):
    """What one ``register`` call of the ``register_presets`` hook adds (the shape of
    :data:`CORE_TABLE`): new families, new presets (name -> what the set is for), rows."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    families: tuple[Family, ...] = ()
    presets: dict[str, str] = Field(default_factory=dict)
    rows: tuple[PresetRow, ...] = ()


#: The core's table. Every row holds the same kinds of tools (a shell, an editor, file
#: search, a scratchpad, an end-of-task signal); only the editor and the native forms
#: differ by family.
CORE_TABLE: dict[str, Any] = {
    "families": [
        {
            "name": "gpt-5",
            "title": "OpenAI GPT-5 family",
            "models": ["gpt-5*"],
        },
        {
            "name": "claude",
            "title": "Anthropic Claude",
            # Bedrock's ids carry the vendor and a region: us.anthropic.claude-...
            "models": ["claude-*", "*anthropic.claude-*"],
        },
    ],
    "presets": {
        "coding": "Read, search, edit and run code in the workspace.",
    },
    "rows": [
        {
            "preset": "coding",
            "family": "gpt-5",
            "tools": ["bash", "apply_patch", "glob", "grep", "think", "finish"],
            "native": {"responses": ["apply_patch", "bash"]},
            "note": "GPT-5 models write Codex's patch format; Responses has typed "
            "apply_patch and shell tools.",
        },
        {
            "preset": "coding",
            "family": "claude",
            "tools": ["bash", "file_editor", "glob", "grep", "think", "finish"],
            "native": {"anthropic": ["bash", "file_editor"]},
            "note": "Claude is trained on Anthropic's text editor and bash tools.",
        },
        {
            "preset": "coding",
            "family": DEFAULT_FAMILY,
            "tools": ["bash", "file_editor", "glob", "grep", "think", "finish"],
            "note": "Function tools only: no trained form to match.",
        },
    ],
}


@dataclass(frozen=True)
class Preset:
    """A host's request: the tool set ``name`` for the model ``model``.

    Give it to ``Toolset.load(preset=...)``. With no ``model`` (or one no family
    matches), the preset's ``default`` row is used.
    """

    name: str
    model: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise PresetError(f"a preset's name must be a non-empty string, not {self.name!r}")
        if self.model is not None and not isinstance(self.model, str):
            raise PresetError(f"a preset's model must be a model's name, not {self.model!r}")


@dataclass(frozen=True)
class PresetChoice:
    """What a :class:`Preset` came to: the model's family and the row used."""

    preset: str
    model: str | None
    #: The family the model matched (``default`` when none did).
    family: Family
    #: The row used: the family's, else the preset's ``default`` row.
    row: PresetRow

    @property
    def tools(self) -> tuple[str, ...]:
        """The tool names the set holds."""
        return self.row.tools

    def native(self, format: str) -> frozenset[str] | Literal[False]:
        """The ``native=`` choice for an export in ``format``: the row's names there,
        else ``False``."""
        names = self.row.native.get(format)
        return frozenset(names) if names else False

    def check(self, registry: ToolRegistry) -> None:
        """Raise :class:`~toolplug.UnknownToolError` (naming this preset and family) for
        a tool of the row that ``registry`` does not have: a plugin not installed or
        not enabled."""
        from toolplug.errors import UnknownToolError

        for name in self.tools:
            try:
                registry.get(name)
            except UnknownToolError as exc:
                message = f"{self.describe()} needs the tool '{name}': {exc}"
                raise UnknownToolError(message) from None

    def describe(self) -> str:
        """One line for a person: the preset, the model, the family and the row."""
        model = f" for {self.model}" if self.model else ""
        family = self.family.title or self.family.name
        used = "" if self.row.family == self.family.name else " (its default row)"
        return f"preset {self.preset}{model}: family {self.family.name} ({family}){used}"


_DEFAULT = Family(name=DEFAULT_FAMILY, title="every other model", models=("*",))


class PresetTable:
    """The families, presets and rows known: the core's and the plugins' (see the
    module's docstring). Build it with :func:`preset_table`."""

    def __init__(self) -> None:
        self._added: list[Family] = []  # the plugins', tried first
        self._core: list[Family] = []
        self._descriptions: dict[str, str] = {}
        self._rows: dict[tuple[str, str], PresetRow] = {}
        self._sources: dict[tuple[str, str], str] = {}  # (kind, name) -> who added it
        #: What could not be added, and why (each names the sources involved).
        self.problems: list[str] = []

    # -- adding ---------------------------------------------------------------------------

    def add(self, data: PresetData | Mapping[str, Any], *, source: str = "the host") -> None:
        """Add families, presets and rows, all or nothing.

        Raises :class:`~toolplug.PresetError` for data that does not validate, or a
        name or row already taken (naming both sources); nothing is added then.
        """
        try:
            data = data if isinstance(data, PresetData) else PresetData.model_validate(data)
        except ValidationError as exc:
            raise PresetError(f"{source} gave preset data that does not validate: {exc}") from None
        taken: list[str] = []
        keys = [
            *(("family", f.name) for f in data.families),
            *(("preset", p) for p in data.presets),
            *(("row", f"{r.preset}/{r.family}") for r in data.rows),
        ]
        for kind, name in keys:
            if (kind, name) in self._sources or (kind, name) == ("family", DEFAULT_FAMILY):
                first = self._sources.get((kind, name), "toolplug")
                taken.append(f"the {kind} '{name}' ({first} has it)")
        doubled = sorted({k[1] for k in keys if keys.count(k) > 1})
        if doubled:
            taken.append(f"{', '.join(doubled)} twice in one call")
        if taken:
            raise PresetError(f"{source} cannot add {'; '.join(taken)}")
        for kind, name in keys:
            self._sources[kind, name] = source
        (self._core if source == "toolplug" else self._added).extend(data.families)
        self._descriptions.update(data.presets)
        for row in data.rows:
            self._descriptions.setdefault(row.preset, "")
            self._rows[row.preset, row.family] = row

    def check(self, formats: Collection[str] | None = None) -> None:
        """Leave out what cannot be used, said in :attr:`problems`: a row for a family
        nobody added, a preset with no ``default`` row, and (given the registered
        ``formats``) a row's native choice for a format no plugin registers."""
        families = {f.name for f in self.families()}
        if formats is not None:
            self._check_native_formats(formats)
        for preset, family in list(self._rows):
            if family not in families:
                where = self._sources["row", f"{preset}/{family}"]
                self.problems.append(
                    f"{where}: the row {preset}/{family} is for an unknown family; "
                    f"known: {', '.join(sorted(families))}"
                )
                del self._rows[preset, family]
        for preset in list(self._descriptions):
            if (preset, DEFAULT_FAMILY) not in self._rows:
                where = self._sources.get(("preset", preset)) or self._first_row_source(preset)
                self.problems.append(
                    f"{where}: the preset '{preset}' has no '{DEFAULT_FAMILY}' row (the tools "
                    "every other model gets); it is left out"
                )
                del self._descriptions[preset]
                for key in [k for k in self._rows if k[0] == preset]:
                    del self._rows[key]

    def _check_native_formats(self, formats: Collection[str]) -> None:
        """Drop a row's native choice for an unknown format (a typo would otherwise
        leave every tool a function tool there, unsaid)."""
        for key, row in list(self._rows.items()):
            unknown = sorted(f for f in row.native if f not in formats)
            if not unknown:
                continue
            where = self._sources["row", f"{key[0]}/{key[1]}"]
            self.problems.append(
                f"{where}: the row {key[0]}/{key[1]} chooses native forms for "
                f"{', '.join(repr(f) for f in unknown)}, which no plugin registers as a "
                f"format (known: {', '.join(sorted(formats))}); that choice is left out"
            )
            kept = {f: names for f, names in row.native.items() if f not in unknown}
            self._rows[key] = row.model_copy(update={"native": kept})

    def _first_row_source(self, preset: str) -> str:
        return next(s for (k, n), s in self._sources.items() if n.startswith(f"{preset}/"))

    # -- reading --------------------------------------------------------------------------

    def families(self) -> list[Family]:
        """The families in the order models are matched: plugins', the core's, default."""
        return [*self._added, *self._core, _DEFAULT]

    def presets(self) -> dict[str, str]:
        """Preset name -> what the set is for, sorted by name."""
        return dict(sorted(self._descriptions.items()))

    def rows(self, preset: str | None = None) -> Iterator[PresetRow]:
        """The rows (of one preset), in the families' matching order."""
        order = {f.name: i for i, f in enumerate(self.families())}
        for key in sorted(self._rows, key=lambda k: (k[0], order.get(k[1], 0))):
            if preset is None or key[0] == preset:
                yield self._rows[key]

    def source(self, kind: str, name: str) -> str:
        """Who added the ``family``, ``preset`` or ``row`` (``preset/family``) ``name``."""
        return self._sources.get((kind, name), "toolplug")

    def family_of(self, model: str | None) -> Family:
        """The first family that matches ``model`` (``default`` for ``None``)."""
        if model is None:
            return _DEFAULT
        return next(f for f in self.families() if f.matches(model))

    def choose(self, preset: Preset | str) -> PresetChoice:
        """The row ``preset`` comes to. An unknown preset name is a
        :class:`~toolplug.PresetError` listing the known ones."""
        if isinstance(preset, str):
            preset = Preset(preset)
        elif not isinstance(preset, Preset):
            raise PresetError(
                f"a preset is a Preset(name, model=...) or a preset's name, not {preset!r}"
            )
        if preset.name not in self._descriptions:
            known = ", ".join(self._descriptions) or "none"
            raise PresetError(f"unknown preset {preset.name!r}; known presets: {known}")
        family = self.family_of(preset.model)
        row = self._rows.get((preset.name, family.name)) or self._rows[preset.name, DEFAULT_FAMILY]
        return PresetChoice(preset.name, preset.model, family, row)


def preset_table(
    pm: pluggy.PluginManager | None = None, formats: Collection[str] | None = None
) -> PresetTable:
    """The core's table, with what the plugins registered with ``pm`` add through the
    ``register_presets`` hook, in the order the plugins were registered (the first to
    take a name keeps it; their families are matched in that order). A plugin whose
    hook raises, or whose data cannot be added, is reported in
    :attr:`PresetTable.problems`; the rest is kept. Given the registered ``formats``,
    a row's native choice for another format is reported and left out."""
    table = PresetTable()
    table.add(CORE_TABLE, source="toolplug")
    if pm is not None:
        _fill(table, pm)
    table.check(formats)
    return table


def _fill(table: PresetTable, pm: pluggy.PluginManager) -> None:
    """Call every plugin's ``register_presets`` into ``table``, plugin by plugin."""
    from toolplug.plugins import LoadGuard, error_text

    def register_for(plugin: str) -> Callable[[PresetData | Mapping[str, Any]], None]:
        def register(data: PresetData | Mapping[str, Any]) -> None:
            try:
                table.add(data, source=f"plugin '{plugin}'")
            except PresetError as exc:
                table.problems.append(str(exc))

        return register

    with LoadGuard() as guard:  # a plugin's sys.exit() is its failure; a Ctrl-C is not
        for impl in pm.hook.register_presets.get_hookimpls():  # registration order
            register = register_for(impl.plugin_name)
            try:
                impl.function(*[register for _ in impl.argnames])
            except BaseException as exc:
                guard.check(exc)
                message = f"register_presets failed: {error_text(exc)}"
                table.problems.append(f"plugin '{impl.plugin_name}': {message}")
