"""What the client reads off the wire, mended where the MCP SDK cannot read it.

The SDK's client transports parse each message with pydantic-core's JSON reader, which
stops at 200 levels of nesting for the whole message. One tool whose schema nests that
deep made a server's whole ``tools/list`` answer unreadable, and with it every tool of
that server. :func:`guard` puts a reader in front of the SDK's, for the transports in
use: a message the SDK reads is read as before, at no cost; a ``tools/list`` answer it
cannot read has each over-deep tool entry replaced by a stub carrying only the tool's
name and a marked schema (:data:`TOO_DEEP`), and is read again. The stub's tool is then
left out with a warning naming it (:func:`~toolplug_mcp.client.schemas.usable_tools`),
and the server's other tools stay. Anything else the SDK cannot read is refused as
before.

The mending walks the text once, without recursion, and only for messages up to
:data:`MAX_MENDED` characters; a bigger unreadable message is refused as it is.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
from typing import Any

log = logging.getLogger("toolplug.mcp")

#: The key marking a stub's schema: its tool nested too deep to be read.
TOO_DEEP = "x-toolplug-too-deep"
#: How deep a tool entry may nest (itself counted) before it is cut out of an unreadable
#: list: as deep as the schemas the client takes (schemas.MAX_DEPTH), plus the entry.
ENTRY_DEPTH = 65
#: The largest unreadable message that is mended (characters): walking it takes about a
#: second of CPU on a slow machine; a bigger one is refused unread.
MAX_MENDED = 16_000_000

# Down to an entry's members: strings (escapes and all), runs of openings, runs of
# closings, colons and commas; numbers, literals and white space are skipped over.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]+|[\]}]+|[:,]', re.DOTALL)
# Inside an entry, only the nesting counts: everything up to the next run of openings
# or closings is skipped in one match (a string unterminated, or the end, stops it). No
# part of it can fail to match, so the engine never backtracks: linear time.
_SKIP = re.compile(r'(?:"[^"\\]*(?:\\.[^"\\]*)*"|[^"\[\]{}]+)*([\[{]+|[\]}]+|"|\Z)', re.DOTALL)

# The SDK's client transport modules, and how each reaches the message reader:
# stdio and SSE through the ``mcp_types`` module (named ``types`` there), streamable
# HTTP through the reader itself, imported by name.
_READERS = {
    "stdio": ("mcp.client.stdio", "types"),
    "sse": ("mcp.client.sse", "types"),
    "http": ("mcp.client.streamable_http", "jsonrpc_message_adapter"),
}


def mend_tool_list(text: str) -> str | None:
    """``text`` (one JSON-RPC message) with each entry of ``result.tools`` that nests
    deeper than :data:`ENTRY_DEPTH` replaced by a stub; ``None`` when nothing was cut
    (not a tool list, or none of its entries is too deep)."""
    scan = _Scan()
    position = 0
    while True:
        if scan.level > 4:
            match = _SKIP.match(text, position)
            assert match is not None  # it matches everywhere (see _SKIP)
            token, at = match.group(1), match.start(1)
            if token == "":
                break
            if token == '"':
                return None  # an unterminated string: left to the SDK to refuse
        else:
            found = _TOKEN.search(text, position)
            if found is None:
                break
            match, token, at = found, found.group(), found.start()
        position = match.end()
        if not scan.read(token, at):
            return None  # not JSON: left to the SDK to refuse
    if not scan.cuts:
        return None
    pieces, done = [], 0
    for number, (start, end, cut_name) in enumerate(scan.cuts):
        pieces += [text[done:start], _stub(cut_name, number)]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


class _Scan:
    """Where :func:`mend_tool_list` is in a message, token by token."""

    def __init__(self) -> None:
        self.level = 0  # how many containers are open
        # Down to an entry's members (level 4), what is being read: the member's key per
        # level (None: not in an object, or before its key) and whether its value is next.
        self.keys: list[str | None] = [None] * 5
        self.value_next = [False] * 5
        self.in_list = False  # inside result.tools (level 3 is that array)
        self.cuts: list[tuple[int, int, str | None]] = []  # (start, end, name) of deep ones
        self.entry_start = self.deepest = 0
        self.name: str | None = None

    def read(self, token: str, at: int) -> bool:
        """Take one token found at ``at``; False if the text cannot be JSON."""
        first = token[0]
        if first in "{[":
            self._open(token, at)
        elif first in "}]":
            return self._close(token, at)
        elif first == ":":
            self.value_next[self.level] = True
        elif first == ",":
            self.value_next[self.level] = False
        elif not self.value_next[self.level]:
            self.keys[self.level] = _decode(token)  # a member's key (or junk, refused later)
        elif self.level == 4 and self.in_list and self.keys[4] == "name":
            self.name = _decode(token)
        return True

    def _open(self, token: str, at: int) -> None:
        for offset, opener in enumerate(token):
            if self.level >= 4:  # inside an entry: only counted, the rest of the run at once
                self.level += len(token) - offset
                self.deepest = max(self.deepest, self.level - 3)
                return
            self.level += 1
            if self.level == 3:
                self.in_list = opener == "[" and self.keys[1:3] == ["result", "tools"]
            elif self.level == 4 and self.in_list:  # an entry begins
                self.entry_start, self.deepest, self.name = at + offset, 1, None
            self.keys[self.level], self.value_next[self.level] = None, False

    def _close(self, token: str, at: int) -> bool:
        inside = min(len(token), max(self.level - 4, 0))
        self.level -= inside  # closings inside an entry, at once
        for offset in range(inside, len(token)):
            self.level -= 1
            if self.level < 0:
                return False
            if self.level == 3 and self.in_list and self.deepest > ENTRY_DEPTH:
                self.cuts.append((self.entry_start, at + offset + 1, self.name))
        return True


def _decode(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _stub(name: str | None, number: int) -> str:
    """A listing the SDK reads, for a tool left out: its name and a marked schema."""
    shown = name if name is not None else f"(unnamed deep tool {number + 1})"
    schema = {"type": "object", TOO_DEEP: ENTRY_DEPTH - 1}
    return json.dumps({"name": shown, "inputSchema": schema})


class MendingReader:
    """The SDK's message reader, behind one that mends over-deep tool lists.

    Only ``validate_json`` is the transports' own use; every other attribute is the
    SDK reader's.
    """

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    def validate_json(self, data: Any, /, **kwargs: Any) -> Any:
        """Read one message as the SDK does; if it cannot, mend a tool list and retry."""
        try:
            return self.reader.validate_json(data, **kwargs)
        except ValueError:
            mended = _mended(data)
            if mended is None:
                raise
        return self.reader.validate_json(mended, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reader, name)


class _TypesWithMending:
    """The ``mcp_types`` module as a transport sees it: its reader mends tool lists."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.jsonrpc_message_adapter = MendingReader(module.jsonrpc_message_adapter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.module, name)


def _mended(data: Any) -> str | None:
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(data, str) or len(data) > MAX_MENDED:
        return None
    return mend_tool_list(data)


def guard(transport: str) -> None:
    """Put the mending reader in front of the SDK's for one transport (``stdio``,
    ``http`` or ``sse``); once per process, imports that transport's module only.

    If the SDK's module no longer reaches its reader the way this expects, nothing is
    changed (a debug line says so): such lists are then refused, as they were.
    """
    module_name, attribute = _READERS[transport]
    module = importlib.import_module(module_name)
    current = getattr(module, attribute, None)
    if isinstance(current, (MendingReader, _TypesWithMending)):
        return
    if attribute == "types" and hasattr(current, "jsonrpc_message_adapter"):
        setattr(module, attribute, _TypesWithMending(current))
    elif attribute != "types" and hasattr(current, "validate_json"):
        setattr(module, attribute, MendingReader(current))
    else:
        log.debug("%s has no message reader where expected; tool lists are not mended", module)
