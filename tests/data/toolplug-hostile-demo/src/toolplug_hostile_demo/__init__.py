"""Plugins that misbehave while loading: each entry point is one module here."""
