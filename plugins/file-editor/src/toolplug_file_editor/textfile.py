"""How a file's bytes become text and back, keeping its encoding and byte order mark.

Files are decoded as UTF-8 (with or without a BOM), UTF-16 and UTF-32 when a BOM says
so, and otherwise fall back to Windows-1252 and then Latin-1. Each of these decodes and
re-encodes losslessly, so the bytes outside an edit are written back exactly as read.
A NUL byte in the first block without a UTF-16/32 BOM marks the file as binary.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from toolplug_file_editor.errors import EditorError

#: How much of a file is read to tell text from binary and to guess its encoding.
SNIFF_BYTES = 8192

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Tried in order for files without a BOM; Latin-1 decodes any byte, so it always works.
FALLBACKS: tuple[str, ...] = ("utf-8", "cp1252", "latin-1")

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

#: The first bytes of the images above (webp's is the R of RIFF): a quick no.
_IMAGE_FIRST_BYTES = frozenset(magic[:1] for magic, _ in _IMAGE_MAGIC) | {b"R"}


@dataclass(frozen=True)
class TextFormat:
    """A file's text encoding: the codec and the byte order mark it starts with."""

    encoding: str = "utf-8"
    bom: bytes = b""

    @property
    def label(self) -> str:
        """A short name for messages, such as ``utf-8 with BOM``."""
        return f"{self.encoding} with BOM" if self.bom else self.encoding

    @property
    def ascii_compatible(self) -> bool:
        """Whether a newline is the single byte ``\\n`` in this encoding."""
        return not self.encoding.startswith(("utf-16", "utf-32"))

    def encode(self, text: str) -> bytes:
        """The whole file's bytes for ``text``, byte order mark included."""
        return self.bom + self.encode_piece(text)

    def encode_piece(self, text: str) -> bytes:
        """The bytes of a piece of the text; an unwritable character is a clear error."""
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise EditorError(
                f"The new text contains {bad!r}, which cannot be written in this file's "
                f"encoding ({self.label}). Use characters the file's encoding has."
            ) from None


#: Plain UTF-8, the format of most files.
UTF8 = TextFormat()


def image_type(head: bytes) -> str | None:
    """The MIME type of a png, jpeg, gif or webp image starting with ``head``, if it is one."""
    if head[:1] not in _IMAGE_FIRST_BYTES:
        return None
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def bom_format(head: bytes) -> TextFormat | None:
    """The format a byte order mark at the start of ``head`` announces, if any."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return TextFormat(encoding, bom)
    return None


def is_binary(head: bytes) -> bool:
    """Whether a file starting with ``head`` is binary (NUL bytes and no UTF-16/32 BOM)."""
    return b"\x00" in head and bom_format(head) is None


def guess_format(head: bytes) -> TextFormat:
    """The likely format of a file from its first bytes (the whole file may disagree)."""
    if head.isascii():
        return UTF8  # no BOM, and what the first fallback gives, without a decoder
    found = bom_format(head)
    if found is not None:
        return found
    for encoding in FALLBACKS:
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            decoder.decode(head, final=False)  # a character cut at the end is fine
        except UnicodeDecodeError:
            continue
        return TextFormat(encoding)
    return TextFormat("latin-1")


def next_fallback(fmt: TextFormat) -> TextFormat | None:
    """The format to try when ``fmt`` fails further into the file (``None``: no other)."""
    if fmt.bom or fmt.encoding not in FALLBACKS:
        return None
    index = FALLBACKS.index(fmt.encoding)
    return TextFormat(FALLBACKS[index + 1]) if index + 1 < len(FALLBACKS) else None


def decode(data: bytes) -> tuple[str, TextFormat]:
    """Decode a whole file. Raises :class:`EditorError` for binary content."""
    if is_binary(data[:SNIFF_BYTES]):
        raise EditorError(
            "This is a binary file (it contains NUL bytes); the editor reads and edits "
            "text files only."
        )
    fmt: TextFormat | None = guess_format(data[:SNIFF_BYTES])
    while fmt is not None:
        try:
            return data[len(fmt.bom) :].decode(fmt.encoding), fmt
        except UnicodeDecodeError:
            fmt = next_fallback(fmt)
    raise EditorError("The file's text cannot be decoded in any supported encoding.")


def splice_bytes(
    data: bytes, text: str, fmt: TextFormat, start: int, end: int, new: str
) -> list[bytes | memoryview]:
    """The file's bytes after replacing ``text[start:end]`` by ``new``, as pieces.

    ``text`` is ``data`` decoded in ``fmt``. The untouched bytes before and after are
    views of ``data``, not copies, so a small edit of a big file copies nothing big.
    """
    bom = len(fmt.bom)
    one_byte_per_char = fmt.encoding in ("cp1252", "latin-1") or (
        fmt.encoding == "utf-8" and len(data) - bom == len(text)
    )
    if one_byte_per_char:
        low, high = bom + start, bom + end
    else:
        low = bom + len(text[:start].encode(fmt.encoding))
        high = low + len(text[start:end].encode(fmt.encoding))
    whole = memoryview(data)
    return [whole[:low], fmt.encode_piece(new), whole[high:]]


def newline_of(text: str) -> str:
    """The line ending a text uses: that of its first line, ``\\n`` when it has none."""
    index = text.find("\n")
    return "\r\n" if index > 0 and text[index - 1] == "\r" else "\n"


def line_count(text: str) -> int:
    """Lines in ``text``: a last line without a newline still counts."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
