"""The pytest plugin of the suite, loaded through the ``pytest11`` entry point ``lengthgen``
(pyproject.toml) as pytest starts, before it parses the command line. Its options take ``--opt value`` as
well as ``--opt=value``, except the three whose values are paths (``--lengthgen-cache-dir``,
``--lengthgen-report-dir``, ``--lengthgen-summary-md``): pytest would take such a value for a test path when
it chooses its rootdir, so their space form is a one-line usage error that says to write ``--opt=value``
(:func:`~lengthgen.testing.options.refuse_space_form`).

It is active only in this suite's session, one whose ini file sets ``lengthgen_suite = true`` (the
project's ``pytest.ini``; ``-o lengthgen_suite=true`` elsewhere; ``-p lengthgen`` loads it where plugin
autoloading is off). In any other session it adds its options (the ``lengthgen`` group of ``pytest --help``)
and declares its names (:mod:`~lengthgen.testing.declarations`: the ini key, the claim tests' markers, its hook),
and does nothing else: no fixtures, no thread cap, no collection change, no directory check, no report. When
active, :func:`pytest_configure` registers the modules below, one concern each (``pytest_configure`` is a historic
hook: each module's own ``pytest_configure`` runs as it is registered).

- :mod:`~lengthgen.testing.options` (always), each named ``--lengthgen-*`` so that it cannot collide with
  another project's options in the same environment: ``--lengthgen-cache-dir DIR``, ``--lengthgen-retrain``,
  ``--lengthgen-seeds SPEC``, ``--lengthgen-device``, ``--lengthgen-threads N``, ``--lengthgen-report-dir
  DIR``, ``--lengthgen-scheduler tcp://HOST:PORT`` (missing ensemble passes train on that Dask cluster,
  ``lengthgen.engine.cluster``), ``--lengthgen-until-decided[=MAX]`` (the stopping rule of
  ``lengthgen.sequential``, run by ``claims.run.run_claim``; MAX is optional, so write it with ``=`` or put
  the option last or before another option: a bare ``--lengthgen-until-decided`` takes the next word for
  MAX), ``--lengthgen-summary-md=FILE``. Every value is checked as it is parsed.
- :mod:`~lengthgen.testing.session`: the process's one
  :class:`~lengthgen.testing.session.LengthgenSession`, under one ``config.stash`` key
  (:func:`~lengthgen.testing.session.session_of`): the start time, the ``--lengthgen-retrain`` time, the
  ``--lengthgen-until-decided`` plan, the report directory, the run's records, the process's
  :class:`~lengthgen.runtime.Runtime` (device, training processes, Dask client, memo; made at configure, closed at
  unconfigure), and what is made on first use (the run's model cache, which carries the runtime; the claims'
  registry; the multiverse's declarations). Also one torch thread per process by default (xdist workers share 2
  cores; the ops are small), matplotlib's Agg backend, the directories checked at start (exit 4, one line), and
  the xdist ``workerinput``/``workeroutput`` (the ``--lengthgen-retrain`` time; each worker's cache counters and
  peak resident memory, ``ru_maxrss``).
- :mod:`~lengthgen.testing.selection`: claim tests run at the paper's scale by default; their ``quick``
  variants run only when the ``-m`` expression names ``quick`` (``pytest -m quick``); a claim test also
  answers ``-k`` by its claim id (``-k C15``; pytest matches substrings, so ``-k C2`` also selects
  C20..C22: name the file for C2 alone).
- :mod:`~lengthgen.testing.fixtures`: ``scale``, ``model_cache`` (not ``cache``: that is pytest's own),
  ``runtime``, and ``claim``/``control``, a :class:`~lengthgen.records.ClaimRecorder` (``ControlRecorder``) for
  the id of the test's ``@pytest.mark.claim("Cn")`` (``control``).
- :mod:`~lengthgen.testing.verdicts`: after the test, its record (with runtime, pytest's outcome and the
  verdict of ``lengthgen.records.verdict.decide``) rides on the test report's ``user_properties``, so the
  xdist controller receives every worker's records (:mod:`~lengthgen.testing.run` gathers them).
- :mod:`~lengthgen.testing.reporting`: the controller alone writes ``reports/claims.json`` and
  ``reports/index.html`` (``--lengthgen-report-dir``) at the end of the run, once the drawings still pending are
  done, and prints the verdict table in the terminal summary.

All state lives in the session object (one ``config.stash`` key) and in a test's ``item.stash`` (its recorder,
its duration, the models trained before it: :mod:`~lengthgen.testing.verdicts`).
"""

from __future__ import annotations

import pytest

from lengthgen.testing.declarations import SUITE_INI
from lengthgen.testing.options import refuse_space_form

# in every session: the options, and the names the plugin declares (its ini key, markers and hook)
pytest_plugins = ("lengthgen.testing.options", "lengthgen.testing.declarations")

SUITE_MODULES = (  # registered in this order when the session is the suite's
    "lengthgen.testing.session",
    "lengthgen.testing.selection",
    "lengthgen.testing.fixtures",
    "lengthgen.testing.verdicts",
    "lengthgen.testing.reporting",
)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """A path option in the space form (``--lengthgen-cache-dir DIR``) is a usage error: pytest has already taken
    its value for a test path when it chose the rootdir (:func:`lengthgen.testing.options.refuse_space_form`)."""
    refuse_space_form(args)


def is_active(config: pytest.Config) -> bool:
    """Whether this session is the suite's: its ini file (or ``-o``) sets ``lengthgen_suite = true``."""
    return bool(config.getini(SUITE_INI))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's modules when the session is the suite's; each one's ``pytest_configure`` runs
    as it is registered (a historic hook), before the other plugins' (``tryfirst``)."""
    if not is_active(config):
        return
    for name in SUITE_MODULES:
        config.pluginmanager.import_plugin(name)  # a no-op for a module already registered (-p NAME)
