"""``python -m lengthgen`` is the ``lengthgen`` command."""

from lengthgen.cli import main

raise SystemExit(main())
