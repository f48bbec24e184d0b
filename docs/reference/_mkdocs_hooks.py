"""mkdocs hooks for this site (named in mkdocs.yml; not a page).

The docs mark a code block that is not run with the word ``fragment`` in its fence
(```` ```python fragment ````; ``tests/test_docs_examples.py`` holds every other block
to running). Markdown's highlighter takes the words after the language as options and
drops a fence with an option it does not know, so the word is taken out before the
page is rendered.
"""

from __future__ import annotations

import re
from typing import Any

_FRAGMENT = re.compile(r"^(?P<fence>[ \t]*(?:`{3,}|~{3,})[^\n`]*?)[ \t]+fragment\b", re.M)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Drop the ``fragment`` marker from fence info strings."""
    return _FRAGMENT.sub(r"\g<fence>", markdown)
