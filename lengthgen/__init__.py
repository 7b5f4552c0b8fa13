"""lengthgen: a claim-verification suite for "Relative Positions Generalize, Absolute Positions Memorize"."""

__version__ = "0.1.0"  # the version's one place: pyproject.toml reads it ([tool.setuptools.dynamic])
