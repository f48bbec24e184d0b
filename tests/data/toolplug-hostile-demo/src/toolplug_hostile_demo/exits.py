"""A plugin that ends the process at import (what toolplug must survive)."""

import sys

sys.exit(7)
