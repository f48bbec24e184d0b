"""``python -m toolplug``: the command line."""

from toolplug._main import main

main()
