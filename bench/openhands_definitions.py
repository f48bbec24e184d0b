"""Print OpenHands' six coding tools as its agent sends them to Chat Completions.

Run by ``bench_context.py`` with the Python of a venv that has ``openhands-sdk`` and
``openhands-tools`` (never toolplug's own venv: they bring their own LLM clients)::

    python bench/openhands_definitions.py WORKSPACE

It builds an ``Agent`` with the terminal, file editor, glob and grep tools (think and
finish come with every agent), lets a local ``Conversation`` in ``WORKSPACE`` create
them, and prints JSON on stdout: the package versions, and the ``tools`` entries
``Tool.to_openai_tool`` makes, the call ``LLM`` uses to build a Chat Completions
request's ``tools``: once as the agent sends them (``add_security_risk_prediction=True``,
as ``Agent.step`` passes it) and once without the risk field. Only the standard
library and OpenHands are imported here.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version

# The model only decides the file editor's image line (vision models get it) and
# native tool calling; no request is made.
MODEL = "gpt-4o"


def main(workspace: str) -> None:
    os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
    from openhands.sdk import LLM, Agent, Conversation
    from openhands.sdk.tool import Tool
    from openhands.tools.file_editor import FileEditorTool
    from openhands.tools.glob import GlobTool
    from openhands.tools.grep import GrepTool
    from openhands.tools.terminal import TerminalTool

    llm = LLM(model=MODEL, api_key="not-used", usage_id="bench")
    specs = [Tool(name=t.name) for t in (TerminalTool, FileEditorTool, GlobTool, GrepTool)]
    agent = Agent(llm=llm, tools=specs)
    conversation = Conversation(agent=agent, workspace=workspace, visualizer=None)
    try:
        conversation._ensure_agent_ready()  # creates the tools, as the first step would
        tools = list(agent.tools_map.values())
        data = {
            "versions": {p: version(p) for p in ("openhands-sdk", "openhands-tools")},
            "model": MODEL,
            "agent": [t.to_openai_tool(add_security_risk_prediction=True) for t in tools],
            "plain": [t.to_openai_tool(add_security_risk_prediction=False) for t in tools],
        }
    finally:
        conversation.close()
    sys.stdout.write(json.dumps(data) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
