"""Remove what the chosen kind does not use: a function tool has no executor module.

Cookiecutter runs this in the baked project's folder, after every file is written.
"""

from pathlib import Path

KIND = "{{ cookiecutter.kind | string_body }}"
PACKAGE = Path("src") / "{{ cookiecutter.package_name | string_body }}"

if KIND == "function":
    # The function in tool.py is the logic; the executor module is the class shape's.
    (PACKAGE / "executor.py").unlink()
