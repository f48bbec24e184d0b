"""``python -m toolplug``: the command line."""

from toolplug.cli import main

main()
