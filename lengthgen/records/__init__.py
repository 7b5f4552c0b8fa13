"""The record a claim test leaves, in plain types from the process that ran it to the page: its checks and
measured quantities (:mod:`~lengthgen.records.check`), the record itself and where it ran
(:mod:`~lengthgen.records.record`), its verdict (one type, :mod:`~lengthgen.records.verdicts`), decided once
(:mod:`~lengthgen.records.verdict`), and the recorders a test fills it through (:mod:`~lengthgen.records.recorder`).
No torch.
"""

from lengthgen.records.check import OPS, THRESHOLD_BASES, THRESHOLD_SOURCES, Check, Measure
from lengthgen.records.record import (
    AtSetting,
    ClaimRecord,
    Control,
    Declared,
    InUniverse,
    PaperPoint,
)
from lengthgen.records.verdicts import CONTROL_VERDICTS, VERDICTS, Verdict
from lengthgen.records.recorder import ClaimRecorder, ControlRecorder, NotReproduced, VerdictFailed, seed_bootstrap

__all__ = [
    "CONTROL_VERDICTS",
    "OPS",
    "THRESHOLD_BASES",
    "THRESHOLD_SOURCES",
    "VERDICTS",
    "AtSetting",
    "Check",
    "ClaimRecord",
    "ClaimRecorder",
    "Control",
    "ControlRecorder",
    "Declared",
    "InUniverse",
    "Measure",
    "NotReproduced",
    "PaperPoint",
    "Verdict",
    "VerdictFailed",
    "seed_bootstrap",
]
