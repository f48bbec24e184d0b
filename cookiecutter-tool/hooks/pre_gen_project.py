"""Check the answers before anything is written; exit 1 with a clear message if wrong.

Cookiecutter renders this file with Jinja first; the ``string_body`` filter (from
``local_extensions.py``) escapes each answer, so any answer makes a valid string.
Cookiecutter deletes the project folder when this hook fails, and
``local_extensions.py`` keeps it from adding a traceback to the messages printed here.
"""

import keyword
import re
import sys

TOOL_NAME = "{{ cookiecutter.tool_name | string_body }}"
DESCRIPTION = "{{ cookiecutter.description | string_body }}"
KIND = "{{ cookiecutter.kind | string_body }}"
PROJECT_SLUG = "{{ cookiecutter.project_slug | string_body }}"
PACKAGE_NAME = "{{ cookiecutter.package_name | string_body }}"
AUTHOR_EMAIL = "{{ cookiecutter.author_email | string_body }}"
TOOLPLUG_SOURCE = "{{ cookiecutter.toolplug_source | string_body }}"
SOURCE_KIND = "{{ cookiecutter.__toolplug_source | kind_of_source }}"
RESOLVED_SOURCE = "{{ cookiecutter.__toolplug_source | string_body }}"

# A tool name is the entry point, part of the package name and the name every provider
# sees: lowercase ASCII identifiers fit all of them (OpenAI allows at most 64 characters).
TOOL_NAME_RULE = re.compile(r"[a-z][a-z0-9_]{0,63}")
# PEP 508 distribution names.
DISTRIBUTION_RULE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
# Enough to catch a slip; the package index checks the rest when you publish.
EMAIL_RULE = re.compile(r"[^@\s]+@[^@\s]+")


def problems():
    """Every wrong answer, each as a sentence that says how to fix it."""
    found = []
    if not DESCRIPTION.strip() or "\n" in DESCRIPTION:
        found.append("description must be one non-empty line: what the tool does, for a model.")
    if KIND not in ("function", "class"):
        found.append(f"kind {KIND!r} must be 'function' or 'class'.")
    if SOURCE_KIND == "invalid":
        found.append(
            f"toolplug_source {TOOLPLUG_SOURCE!r} ({RESOLVED_SOURCE}) is not 'index', a "
            "checkout of toolplug (a folder with core/pyproject.toml), a wheelhouse (a "
            "folder with a toolplug-*.whl) or a URL (git+https://... or https://...)."
        )
    if not EMAIL_RULE.fullmatch(AUTHOR_EMAIL):
        found.append(f"author_email {AUTHOR_EMAIL!r} is not an email address (name@example.com).")
    if not TOOL_NAME_RULE.fullmatch(TOOL_NAME):
        found.append(
            f"tool_name {TOOL_NAME!r} is not a valid identifier for a tool: use lowercase "
            "letters, digits and underscores, start with a letter, at most 64 characters "
            "(for example 'word_count')."
        )
        return found  # the names below derive from the tool name: report them once it is right
    if not DISTRIBUTION_RULE.fullmatch(PROJECT_SLUG):
        found.append(
            f"project_slug {PROJECT_SLUG!r} is not a valid distribution name "
            "(letters, digits, '.', '_' and '-'; for example 'toolplug-word-count')."
        )
    if not PACKAGE_NAME.isidentifier() or keyword.iskeyword(PACKAGE_NAME):
        found.append(f"package_name {PACKAGE_NAME!r} is not a valid Python package name.")
    return found


def main():
    """Print every problem to stderr and stop the bake if there is any."""
    found = problems()
    for problem in found:
        print(f"ERROR: {problem}", file=sys.stderr)
    if found:
        sys.exit(1)


main()
