"""Write the JSON Schemas of the files people write by hand, from the pydantic models that
check them, into docs/reference/ (editors validate the files against them).

    python tools/schemas.py           # write every schema
    python tools/schemas.py --check   # exit 1, naming each, when a committed file differs

The packages' tests run the same comparison, so a model changed without its schema fails
there with this command in the message.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Each published schema and the module whose ``schema_text()`` makes it.
SCHEMAS = {
    "docs/reference/policy.schema.json": "toolplug_policy.model",
    "docs/reference/mcp-config.schema.json": "toolplug_mcp.client.config_model",
}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for relative, module in SCHEMAS.items():
        text = importlib.import_module(module).schema_text()
        path = ROOT / relative
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(relative)
        if not check:
            path.write_text(text, encoding="utf-8")
    for relative in stale:
        print(f"{relative} {'is out of date' if check else 'written'}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
