{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "class" -%}
{%- set public = P ~ "Tool" if stateful else cookiecutter.tool_name | py_name -%}
"""{{ cookiecutter.project_slug }}: {{ cookiecutter.description | string_body }}"""

from __future__ import annotations

from collections.abc import Callable

from toolplug import hookimpl
{% if stateful %}
from {{ cookiecutter.package_name }}.executor import {{ P }}Executor
{%- endif %}
from {{ cookiecutter.package_name }}.tool import {{ public }}
from {{ cookiecutter.package_name }}.types import (
    DESCRIPTION,
{%- if stateful %}
    {{ P }}Action,
{%- endif %}
    {{ P }}Observation,
)

__all__ = [
    "DESCRIPTION",
{%- if stateful %}
    "{{ P }}Action",
    "{{ P }}Executor",
{%- endif %}
    "{{ P }}Observation",
    "{{ public }}",
    "register_tools",
]


@hookimpl
def register_tools(register: Callable[..., None]) -> None:
    """Tell toolplug about the tool; called when the plugin is enabled."""
{%- if stateful %}
    # A class: the registry calls {{ P }}Tool.create(context, **params) per session.
    register({{ P }}Tool, name="{{ cookiecutter.tool_name }}")
{%- else %}
    # A ready tool: stateless, it takes no params.
    register({{ public }})
{%- endif %}
