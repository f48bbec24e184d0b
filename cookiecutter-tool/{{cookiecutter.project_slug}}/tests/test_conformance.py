{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "class" -%}
"""toolplug's conformance suite: what every tool promises, checked for this one."""

from __future__ import annotations

import {{ cookiecutter.package_name }}
from toolplug.testing import ToolConformance


class Test{{ P }}Conformance(ToolConformance):
    """Registration, discovery, exports in every provider format, calls, errors, closing."""

    plugin = {{ cookiecutter.package_name }}
    tool_name = "{{ cookiecutter.tool_name }}"
    entry_point = "{{ cookiecutter.tool_name }}"
    tool_params = {{ '{"max_chars": 1000}' if stateful else "{}" }}
    #: A call that succeeds.
    valid_arguments = {"text": "one two three"}
    #: A call the action accepts but the tool refuses: its error path.
    failing_call = {"text": "x" * {{ "1001" if stateful else "100_001" }}}

    # When a valid call needs a file, make it here (the suite calls this before it
    # creates the tool):
    #
    # def prepare_workspace(self, workspace):
    #     (workspace / "input.txt").write_text("one two three")
