"""The rules the docs harness reads blocks and shown output by (tests/docs_blocks.py)."""

from __future__ import annotations

from docs_blocks import blocks, commands, output_matches

PAGE = """\
Some prose.

```python fragment
undefined_name()
```

1. A list item with a block:

    ```console
    $ toolplug call think '{"thought": "x"}'
    Your thought has been logged.
    $ echo done
    ```

~~~~json
{"a": 1}
~~~~
"""


def test_blocks_are_found_with_their_info_lines_and_indent() -> None:
    found = blocks("page.md", PAGE)
    assert [(b.lang, b.fragment, b.line) for b in found] == [
        ("python", True, 3),
        ("console", False, 9),
        ("json", False, 15),
    ]
    assert found[1].source.startswith("$ toolplug call think")
    assert found[2].source == '{"a": 1}\n'


def test_a_console_block_splits_into_commands_and_shown_output() -> None:
    console = blocks("page.md", PAGE)[1]
    assert [(c.text, c.shown) for c in commands(console)] == [
        ('toolplug call think \'{"thought": "x"}\'', "Your thought has been logged.\n"),
        ("echo done", None),
    ]


def test_shown_output_must_match_except_where_it_says_dots() -> None:
    assert output_matches("hi\n", "hi\n\n")
    assert not output_matches("hi\n", "hi\n[Exit code 0. Working directory: /w]\n")
    assert output_matches(
        "hi\n[Exit code 0. Working directory: ...]\n", "hi\n[Exit code 0. Working directory: /w]\n"
    )
    assert output_matches("...\nb\n...\n", "a\nb\nc\n")
    assert output_matches("...\nb\n", "b\n")
    assert not output_matches("...\nb\n", "b\nc\n")


def test_shown_json_is_compared_as_json() -> None:
    assert output_matches('{"a": [1, 2],\n "b": null}\n', '{\n  "b": null,\n  "a": [1, 2]\n}\n')
    assert not output_matches('{"a": 1}\n', '{"a": 2}\n')
