"""The one-layer head: ``head.py`` the plain reference forward, ``fast/`` the per-row fast path (one file per
encoding)."""
