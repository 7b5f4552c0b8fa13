"""A path option written in the space form is a usage error that says to write ``--opt=value``.

pytest chooses its rootdir and ini file from a first parse of the command line, made before it loads
plugins from entry points; in that parse the value of an option it does not know yet is taken for a test
path (pytest-dev/pytest#8846, a known limitation). So ``pytest -m quick --lengthgen-cache-dir /an/existing/dir``
would make that directory the rootdir, read no ini file, and run a session that is not the suite's; under
xdist the workers parse the command line again after the controller has created the directory. Deciding the
rootdir again would mean writing pytest's private ``Config`` attributes after it has already applied
``minversion``, ``pythonpath`` and ``required_plugins`` from the ini file it chose, so the plugin refuses
instead: the options whose values are paths (:data:`PATH_OPTIONS`) take ``--opt=value`` only. The others
(seeds, threads, device, a scheduler address, a seed maximum) take both forms: their values are not paths.
"""

from __future__ import annotations

import pytest

PATH_OPTIONS = ("--lengthgen-cache-dir", "--lengthgen-report-dir", "--lengthgen-summary-md")  # values are paths


def refuse_space_form(args: list[str]) -> None:
    """Raise pytest's usage error (exit 4, one line) for the first path option in ``args`` written without ``=``."""
    for index, arg in enumerate(args):
        if arg in PATH_OPTIONS:
            value = args[index + 1] if index + 1 < len(args) else "VALUE"
            raise pytest.UsageError(
                f"{arg} {value}: pytest would take {value!r} for a test path when it chooses its "
                f"rootdir (pytest-dev/pytest#8846); write {arg}={value}"
            )
