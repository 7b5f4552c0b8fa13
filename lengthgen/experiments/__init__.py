"""Experiments: one function per paper experiment, returning a result object.

The CLI subcommand, the claim test and the report all call these functions (one source of truth).
"""
