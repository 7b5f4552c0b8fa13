"""The pytest plugin of the suite (loaded by the top-level ``conftest.py``; ``-p lengthgen.testing.plugin``
elsewhere). This module is the entry point: it pulls in the modules below, one concern each.

- :mod:`~lengthgen.testing.options`: ``--cache-dir=DIR``, ``--retrain``, ``--seeds=SPEC``, ``--device``,
  ``--threads=N``, ``--report-dir=DIR``, ``--scheduler=tcp://HOST:PORT`` (missing ensemble passes train on
  that Dask cluster, ``lengthgen.engine.cluster``), ``--until-decided[=MAX]`` (the stopping rule of
  ``lengthgen.sequential``, run by ``claims.support.judge``; write MAX with ``=``, or the option last: a
  bare ``--until-decided`` takes the next word for MAX). Every value is checked as it is parsed.
  (Write a path value with ``=``: pytest decides its rootdir before it knows a conftest's options, so in
  ``pytest -m quick --cache-dir /existing/dir`` the directory is taken for a test path.)
- :mod:`~lengthgen.testing.session`: one torch thread per process by default (xdist workers share 2 cores;
  the ops are small), matplotlib's Agg backend, the directories checked at start (exit 4, one line), the
  run's model cache, and the xdist ``workerinput``/``workeroutput`` (the ``--retrain`` time; each worker's
  cache counters and peak resident memory, ``ru_maxrss``).
- :mod:`~lengthgen.testing.selection`: claim tests run at the paper's scale by default; their ``quick``
  variants run only when the ``-m`` expression names ``quick`` (``pytest -m quick``); a claim test also
  answers ``-k`` by its claim id (``-k C15``; pytest matches substrings, so ``-k C2`` also selects
  C20..C22: name the file for C2 alone).
- :mod:`~lengthgen.testing.fixtures`: ``scale``, ``cache``, and ``claim``/``control``, a
  :class:`~lengthgen.records.ClaimRecorder` (``ControlRecorder``) for the id of the test's
  ``@pytest.mark.claim("Cn")`` (``control``).
- :mod:`~lengthgen.testing.verdicts`: after the test, its record (with runtime, pytest's outcome and the
  verdict of ``lengthgen.report.verdict.decide``) rides on the test report's ``user_properties``, so the
  xdist controller receives every worker's records (:mod:`~lengthgen.testing.run` gathers them).
- :mod:`~lengthgen.testing.reporting`: the controller alone writes ``reports/claims.json`` and
  ``reports/index.html`` (``--report-dir``) at the end of the run and prints the verdict table in the
  terminal summary.

All state lives in ``config.stash`` and ``item.stash`` (:mod:`~lengthgen.testing.state`).
"""

pytest_plugins = (
    "lengthgen.testing.options",
    "lengthgen.testing.session",
    "lengthgen.testing.selection",
    "lengthgen.testing.fixtures",
    "lengthgen.testing.verdicts",
    "lengthgen.testing.reporting",
)
