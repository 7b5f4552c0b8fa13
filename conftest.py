"""Top-level conftest: loads the suite's pytest plugin (options, thread caps, claim records, report)."""

pytest_plugins = ("lengthgen.testing.plugin",)
