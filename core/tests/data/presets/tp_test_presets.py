"""A test plugin that adds to the presets table: a family matched before the core's
(``gpt-5-tiny*`` is in the core's ``gpt-5*`` too), a preset of its own, a row in the
core's ``coding`` preset, and a tool with a native form for ``responses``.

The form is toolplug's own NativeForm declaring an OpenAI Responses custom tool: the
real class, so that the preset's native choice can be seen reaching an export whatever
forms the installed plugins have today.
"""

from toolplug import ToolDefinition, hookimpl
from toolplug.formats.forms import NativeForm


def shout(text: str) -> str:
    """Say the text louder."""
    return text.upper()


SHOUT_FORM = NativeForm(
    "responses",
    {"type": "custom", "name": "shout", "description": "Say the text louder."},
)

shout_tool = ToolDefinition.from_function(shout)
shout_tool.native_forms = {"responses": SHOUT_FORM}


@hookimpl
def register_tools(register):
    register(shout_tool)


@hookimpl
def register_presets(register):
    register(
        {
            "families": [
                {"name": "tiny", "title": "Tiny models", "models": ["tiny-*", "gpt-5-tiny*"]}
            ],
            "presets": {"talk": "Say things."},
            "rows": [
                {"preset": "talk", "tools": ["think", "shout"]},
                {
                    "preset": "talk",
                    "family": "tiny",
                    "tools": ["shout", "think"],
                    "native": {"responses": ["shout"]},
                },
                {"preset": "coding", "family": "tiny", "tools": ["bash", "file_editor", "grep"]},
            ],
        }
    )
