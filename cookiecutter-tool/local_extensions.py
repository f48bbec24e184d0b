"""The Jinja filter that puts any answer inside a double-quoted string literal.

Cookiecutter loads this module because ``cookiecutter.json`` names the filter under
``_extensions``. Template sources write ``"{{ cookiecutter.x | string_body }}"``: the
quotes stay in the source, which keeps ``pyproject.toml`` valid TOML and the hook valid
Python before rendering, and the filter escapes what goes between them.
"""

from __future__ import annotations

from cookiecutter.utils import simple_filter

# Escapes that mean the same in TOML basic strings and Python string literals.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@simple_filter
def string_body(value: object) -> str:
    """The text of ``value`` escaped for the inside of "..." in TOML and in Python."""
    out = []
    for char in str(value):
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)
