{%- set P = cookiecutter.__class_prefix -%}
"""toolplug's conformance suite: what every tool promises, checked for this one."""

from __future__ import annotations

import {{ cookiecutter.package_name }}
from toolplug.testing import ToolConformance


class Test{{ P }}Conformance(ToolConformance):
    """Registration, discovery, exports in every provider format, calls and closing."""

    plugin = {{ cookiecutter.package_name }}
    tool_name = "{{ cookiecutter.tool_name }}"
    entry_point = "{{ cookiecutter.tool_name }}"
    tool_params = {{ '{"max_chars": 1000}' if cookiecutter.kind == "stateful" else "{}" }}
    valid_arguments = {"text": "one two three"}
