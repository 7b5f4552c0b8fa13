"""The two-layer transformer of C12/C13 (``transformer.py``)."""
