"""What ``toolplug plugins`` prints, shared by the fast path and the click command."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolplug.plugins import PluginReport, installed_plugins


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
        import json

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
