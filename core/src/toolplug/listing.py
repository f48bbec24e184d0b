"""What ``toolplug plugins`` prints (shared by the fast path and the click command), and
what ``toolplug tools --check`` and ``--tokens`` print."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolplug.plugins import PluginReport, installed_plugins

if TYPE_CHECKING:
    from toolplug.toolset import Toolset


def plugin_reports(selection: str | Iterable[str] | None, *, check: bool) -> list[PluginReport]:
    """Installed plugins; with ``check``, loaded, with their tools and status."""
    if not check:
        return installed_plugins(selection)
    from toolplug.registry import ToolRegistry

    return ToolRegistry.from_plugins(selection).reports


def check_status(reports: Sequence[PluginReport]) -> int:
    """The exit status of ``toolplug plugins --check``: 1 if an enabled plugin is broken
    or shares a tool name with another."""
    return 1 if any(r.enabled and (r.status == "broken" or r.conflicts) for r in reports) else 0


def render_plugins(reports: Sequence[PluginReport], *, as_json: bool, check: bool) -> str:
    """The listing as JSON, or as aligned text lines."""
    if as_json:
        return json.dumps([r.as_dict() for r in reports], indent=2) + "\n"
    if not reports:
        return "No plugins installed. Try: toolplug install toolplug-bash\n"
    lines = []
    for r in reports:
        where = f"{r.distribution or '?'} {r.version or ''}".strip()
        state = r.status if check else ("enabled" if r.enabled else "disabled")
        lines.append(f"{r.name:<16} {where:<32} {state}")
        if check and r.tools:
            lines.append(f"{'':<16} tools: {', '.join(r.tools)}")
        if r.error:
            lines.append(f"{'':<16} error: {r.error}")
        lines.extend(f"{'':<16} conflict: {message}" for message in r.conflicts)
    return "\n".join(lines) + "\n"


def render_violations(
    toolset: Toolset, format: str, as_json: bool, **options: Any
) -> tuple[str, int]:
    """What ``toolplug tools --check FORMAT`` prints, and its exit status (1 on a
    violation)."""
    from toolplug.limits import LIMITS, check

    found = check(format, toolset.export(format, check="off", **options), **options)
    if as_json:
        rows = [
            {"tool": v.tool, "rule": v.rule, "message": v.message, "advice": v.advice}
            for v in found
        ]
        data = {"format": format, "tools": len(toolset), "violations": rows}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n", 1 if found else 0
    if format not in LIMITS:
        return f"{format}: no known limits to check ({len(toolset)} tools)\n", 0
    if not found:
        return f"{format}: {len(toolset)} tools, no limit broken\n", 0
    lines = [f"{format}: {len(toolset)} tools, {len(found)} limit(s) broken"]
    for v in found:
        lines.append(f"{v.tool or '(all tools)'}: {v.message}")
        lines.append(f"    rule: {v.rule}")
        lines.append(f"    do: {v.advice}")
    return "\n".join(lines) + "\n", 1


def render_tokens(toolset: Toolset, format: str, as_json: bool, **options: Any) -> str:
    """What ``toolplug tools --tokens`` prints: each tool's definition cost and the total."""
    from toolplug.tokens import ENCODING, count_definitions

    counts = count_definitions(toolset, format, **options)
    if as_json:
        return json.dumps(counts.as_dict(), indent=2, ensure_ascii=False) + "\n"
    width = max((len(name) for name in counts.tools), default=5)
    lines = [f"{name:<{width}}  {n:>7,}" for name, n in counts.tools.items()]
    lines.append(f"{'total':<{width}}  {counts.total:>7,}")
    lines.append(f"({ENCODING} tokens of the {format} definitions' JSON: {counts.accuracy})")
    return "\n".join(lines) + "\n"
