{%- set P = cookiecutter.__class_prefix -%}
{%- set stateful = cookiecutter.kind == "class" -%}
"""The {{ cookiecutter.tool_name }} tool's types: {% if stateful %}its action, {% endif %}its observation, and its description.

This module imports nothing of the package: {% if stateful %}the executor and the tool build{% else %}the tool builds{% endif %} on it.
"""

from __future__ import annotations

from pydantic import Field
from toolplug import {% if stateful %}Action, {% endif %}Observation

#: What a model reads about the tool in every export: say what it does and when to use it.
DESCRIPTION = "{{ cookiecutter.description | string_body }}"
{% if stateful %}

class {{ P }}Action(Action):
    """The input of the {{ cookiecutter.tool_name }} tool."""

    # Every field needs a description: it is what the model reads in the schema.
    text: str = Field(description="The text to count the words and characters of.")
{% endif %}

class {{ P }}Observation(Observation):
    """The result of a {{ cookiecutter.tool_name }} call: the counts, as typed fields."""

    # Typed fields are the MCP structuredContent: hosts read them without parsing text.
    words: int = Field(description="How many words the text has (split on whitespace).")
    characters: int = Field(description="How many characters the text has.")
{%- if stateful %}
    total_words: int = Field(
        description="Words counted in this session so far, this call included."
    )
{%- endif %}
