{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "stateful" -%}
"""{{ cookiecutter.project_slug }}: {{ cookiecutter.description | string_body }}"""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl

from {{ cookiecutter.package_name }}.executor import {{ P }}Executor
from {{ cookiecutter.package_name }}.tool import {% if stateful %}{{ P }}Tool{% else %}{{ cookiecutter.tool_name }}_tool{% endif %}
from {{ cookiecutter.package_name }}.types import (
    DESCRIPTION,
    {{ P }}Action,
    {{ P }}Observation,
)

__all__ = [
    "DESCRIPTION",
    "{{ P }}Action",
    "{{ P }}Executor",
    "{{ P }}Observation",
    "{% if stateful %}{{ P }}Tool{% else %}{{ cookiecutter.tool_name }}_tool{% endif %}",
    "register_tools",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Tell toolplug about the tool; called when the plugin is enabled."""
{%- if stateful %}
    # A class: the registry calls {{ P }}Tool.create(context, **params) per session.
    register({{ P }}Tool, name="{{ cookiecutter.tool_name }}")
{%- else %}
    # An instance: stateless, it takes no params.
    register({{ cookiecutter.tool_name }}_tool)
{%- endif %}
