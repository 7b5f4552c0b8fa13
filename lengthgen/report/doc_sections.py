"""Generated sections of a hand-written document: the text between a pair of markers is rendered from a recorded
run (``lengthgen docs``); everything outside them stays as written.

    <!-- lengthgen docs: begin verdicts -->
    ...rendered...
    <!-- lengthgen docs: end verdicts -->

:func:`fill` replaces every section's body; a broken pair of markers (a begin without its end, an end without its
begin, a section twice, one nested in another, a name the renderer does not know, or one it renders that the
document lacks) is a ``ValueError`` naming the document, the section and the line, and nothing is written. No
torch.
"""

from __future__ import annotations

import re
from typing import Mapping

BEGIN = "<!-- lengthgen docs: begin {name} -->"
END = "<!-- lengthgen docs: end {name} -->"
MARKER = re.compile(r"^<!-- lengthgen docs: (begin|end) ([a-z0-9-]+) -->$")


def spans(text: str, document: str) -> dict[str, tuple[int, int]]:
    """Each section's (begin line, end line), 0-based, of ``text``; ValueError for broken markers."""
    found: dict[str, tuple[int, int]] = {}
    open_: tuple[str, int] | None = None
    for i, line in enumerate(text.splitlines()):
        if "lengthgen docs:" not in line or line.lstrip().startswith("<!-- rendered by"):
            continue
        match = MARKER.match(line.strip())
        if match is None:
            raise ValueError(f"{document}:{i + 1}: a malformed marker {line.strip()!r}")
        kind, name = match.groups()
        if kind == "begin":
            if open_ is not None:
                raise ValueError(
                    f"{document}:{i + 1}: section {name!r} begins inside {open_[0]!r} (line {open_[1] + 1})"
                )
            if name in found:
                raise ValueError(f"{document}:{i + 1}: section {name!r} appears twice")
            open_ = (name, i)
        else:
            if open_ is None or open_[0] != name:
                raise ValueError(f"{document}:{i + 1}: section {name!r} ends without its begin marker")
            found[name] = (open_[1], i)
            open_ = None
    if open_ is not None:
        raise ValueError(f"{document}:{open_[1] + 1}: section {open_[0]!r} has no end marker")
    return found


def fill(text: str, sections: Mapping[str, str], document: str) -> str:
    """``text`` with the body of every section of ``sections`` replaced by its rendering; ValueError naming the
    document and line for broken markers, an unknown section, or a rendered section the document lacks."""
    found = spans(text, document)
    unknown = sorted(set(found) - set(sections))
    if unknown:
        raise ValueError(f"{document}: section {unknown[0]!r} is not one `lengthgen docs` renders")
    lacking = sorted(set(sections) - set(found))
    if lacking:
        raise ValueError(f"{document}: the markers of section {lacking[0]!r} are missing")
    lines = text.splitlines()
    out: list[str] = []
    last = 0
    for name, (begin, end) in sorted(found.items(), key=lambda kv: kv[1][0]):
        out += lines[last : begin + 1]
        out += sections[name].rstrip("\n").splitlines()
        last = end
    out += lines[last:]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
