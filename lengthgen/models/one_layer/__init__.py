"""The one-layer head: ``head.py`` the plain reference forward, ``fast.py`` the per-vocabulary fast path."""
