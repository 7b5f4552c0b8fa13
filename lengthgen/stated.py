"""The numbers the paper states (catalogue, "Numbers the paper states"), each with the measurement of the
suite that reproduces it: the multiverse's "what the paper's numbers say about its readings"
(:mod:`lengthgen.report.stated_numbers`). Plain data, no torch.

A stated number is a value (``low == high``) or a range, with the digits the paper gives it to. A measurement
is one or more names of a claim's record at a column ("C13" is d = 96, "C13-d64" the first width): checks or
measured quantities, as fnmatch patterns. Where the paper leaves open which K or which head it reports,
``match="any"``: it agrees when one of the candidates agrees; a range across settings, ``match="all"``: every
candidate lies in it. A value agrees when it lies within half a unit of its last digit of the measured seed
mean's 95 % interval (of the value itself where the measurement is exact); a range when every candidate's
value lies inside it, widened by that half unit.
"""

from __future__ import annotations

from dataclasses import dataclass

from lengthgen.config import _require


@dataclass(frozen=True)
class Stated:
    """A number the paper states and where the suite measures it."""

    claim: str  # the claim it belongs to ("C4")
    quantity: str  # in the paper's words
    low: float  # the stated value, or the low end of a stated range
    high: float  # the same value, or the high end
    digits: int  # decimal places the paper gives (half a unit of the last one is its rounding)
    where: str  # where the paper states it
    column: str  # the grid column whose record measures it ("C13": d = 96)
    names: tuple[str, ...]  # the record's checks or measured quantities that measure it (fnmatch patterns)
    match: str = "any"  # "any": one candidate agrees (the paper leaves K or the head open); "all": every one
    all_checks_pass: bool = False  # the number is "every cell passes" (C3's 100 %): agrees when every check passed

    def __post_init__(self) -> None:
        _require(self.low <= self.high, f"{self.claim} {self.quantity!r}: low {self.low} > high {self.high}")
        _require(self.match in ("any", "all"), f"match={self.match!r} must be 'any' or 'all'")
        _require(self.digits >= 0, f"digits={self.digits!r} must be >= 0")
        _require(bool(self.names) or self.all_checks_pass, f"{self.claim} {self.quantity!r} names no measurement")

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0**-self.digits

    @property
    def text(self) -> str:
        value = f"{self.low:.{self.digits}f}"
        return value if self.low == self.high else f"{value}-{self.high:.{self.digits}f}"


def _k(name: str) -> tuple[str, ...]:
    return tuple(name.format(k=k) for k in (2, 3))


STATED: tuple[Stated, ...] = (
    Stated(
        "C3",
        "selected offset equals the target, share of seed x length cells",
        1,
        1,
        2,
        "contributions (2)",
        "C3",
        (),
        all_checks_pass=True,
    ),
    Stated(
        "C4",
        "key carrier fraction under softmax, d = 64",
        0.80,
        0.80,
        2,
        "Sec. 7",
        "C4",
        _k("K={k}: key carrier fraction (mean over seeds)"),
    ),
    Stated(
        "C4",
        "the untrained baseline of that fraction",
        0.016,
        0.016,
        3,
        "Sec. 7",
        "C4",
        _k("K={k}: untrained key carrier fraction (paper 0.016)"),
    ),
    Stated(
        "C4",
        "cos(m_Q, R_{-K} m_K) under softmax",
        0.83,
        0.83,
        2,
        "Sec. 7",
        "C4",
        _k("K={k}: cos(m_Q, R_-K m_K) (mean over seeds)"),
    ),
    Stated(
        "C11",
        "linear attention, accuracy in distribution",
        0.96,
        0.96,
        2,
        "Sec. 7",
        "C11",
        tuple(f"linear K={k} L={n}: accuracy" for k in (2, 3) for n in (12, 16)),
    ),
    Stated(
        "C11", "linear attention, accuracy at L = 48", 0.07, 0.07, 2, "Sec. 7", "C11", _k("linear K={k} L=48: accuracy")
    ),
    Stated(
        "C11",
        "softmax (RoPE) accuracy at L = 48, beside it",
        1.00,
        1.00,
        2,
        "Sec. 7",
        "C11",
        _k("softmax K={k} L=48: accuracy"),
    ),
    Stated(
        "C11",
        "linear attention, cos(m_Q, R_{-K} m_K)",
        0.1,
        0.1,
        1,
        "Sec. 7",
        "C11",
        _k("linear K={k}: |cos(m_Q, R_-K m_K)| (mean over seeds)"),
    ),
    Stated(
        "C11",
        "linear attention, key carrier fraction",
        0.07,
        0.07,
        2,
        "Sec. 7",
        "C11",
        _k("linear K={k}: key carrier fraction (mean over seeds)"),
    ),
    Stated(
        "C13",
        "two-layer RoPE retrieving head, carrier",
        0.98,
        0.98,
        2,
        "contributions (5)",
        "C13",
        ("RoPE retrieving head: key carrier fraction (mean over seeds)",),
    ),
    Stated(
        "C13",
        "its baseline",
        0.02,
        0.02,
        2,
        "contributions (5)",
        "C13",
        ("RoPE retrieving head: untrained key carrier fraction (paper 0.02)",),
    ),
    *(
        Stated(
            "C14",
            f"OOD accuracy at rotary base {base}",
            value,
            value,
            2,
            "Fig. 4 paragraph",
            "C14",
            _k(f"base {base} K={{k}}: OOD accuracy (mean over L > 16 and seeds)"),
        )
        for base, value in (("1e+03", 1.00), ("1e+04", 1.00), ("1e+05", 0.97))
    ),
    Stated(
        "C15",
        "max over s >= 4 of g(s)/g(0), d = 64, bases 1e3..1e5",
        0.67,
        0.79,
        2,
        "Fig. 4 paragraph",
        "C15",
        ("base 1e+0[345]: max_(s>=4) g(s)/g(0)",),
        match="all",
    ),
    Stated(
        "C17",
        "carrier fraction across widths, vocabularies, length ranges, temperatures",
        0.72,
        0.86,
        2,
        "Fig. 4 paragraph",
        "C17",
        ("* K=[23]: key carrier fraction",),
        match="all",
    ),
    Stated(
        "C21",
        "content task with two heads, accuracy",
        1.00,
        1.00,
        2,
        "multi-head paragraph",
        "C21",
        ("H=2 L=1[26]: accuracy",),
        match="all",
    ),
    Stated(
        "C21",
        "each head's top singular-value energy of W",
        0.39,
        0.57,
        2,
        "multi-head paragraph",
        "C21",
        ("H=2 head [01]: top singular-value energy of W_h (paper 0.39-0.57)",),
        match="all",
    ),
    Stated(
        "C22",
        "peak attention at L = 48, H = 1",
        0.69,
        0.69,
        2,
        "multi-head paragraph",
        "C22",
        ("H=1 L=48: peak attention (paper 0.69)",),
    ),
    Stated(
        "C22",
        "peak attention at L = 48, H = 4",
        0.30,
        0.30,
        2,
        "multi-head paragraph",
        "C22",
        ("H=4 L=48: peak attention (paper 0.30)",),
    ),
)

# The untrained baselines (C4's 0.016, C13's 0.02) under another definition: not the untrained model's
# measured carrier fraction (the suite's 0.052 / 0.055) but the fraction an isotropic random vector puts on
# one direction in expectation, 1/d (0.0156 at d = 64). A reading of that measurement only: it moves no check.
BASELINE_BY_WIDTH = {"C4": 64, "C13": 96, "C13-d64": 64}  # the width d whose 1/d is the baseline of each column
