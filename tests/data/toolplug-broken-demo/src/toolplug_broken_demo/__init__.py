"""A plugin whose import fails, as one with a missing native library would."""

import toolplug_library_that_is_not_installed  # noqa: F401
