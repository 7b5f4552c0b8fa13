"""Which claim tests one xdist worker runs back to back: the tests that read the same expensive models.

C12 and C13 read the same two-layer transformers (per width, per scale, per robustness setting or multiverse
universe). Handed to two workers, the second waits on the cache's lock while the first trains them, and a
core idles for minutes. ``TogetherScheduling`` is xdist's ``LoadScopeScheduling`` with one scope per test,
except that the tests of one such group share a scope, so one worker runs them one after the other (the
second reads the cache) while the other worker trains something else. Test ids are not renamed (xdist's
``loadgroup`` would append ``@group`` to them), and the results do not change: only which worker runs what.

It is the scheduler of ``--dist load`` (what ``-n`` uses by default) for the claim suite; ``--dist`` given
any other value keeps xdist's own.
"""

from __future__ import annotations

import re

from xdist.scheduler import LoadScopeScheduling

# the claim test files whose tests (and controls) read the two-layer transformers of their parameter's width
TWO_LAYER_FILES = ("claims/test_c12_two_layer_accuracy.py", "claims/test_c13_two_layer_heads.py")
# a robustness or multiverse cell of C12 or C13: "...[<setting>-C12-d64]" and "...[<setting>-C13-d64]"
TWO_LAYER_CELL = re.compile(r"-C1[23](?=-|\])")


def together_scope(nodeid: str) -> str:
    """The scope of a test: the tests that share one are run by one worker, in collection order."""
    path, _, rest = nodeid.partition("::")
    if path in TWO_LAYER_FILES:
        param = rest[rest.index("[") :] if "[" in rest else ""
        return f"two-layer transformers{param}"
    return TWO_LAYER_CELL.sub("-C12+C13", nodeid)


class TogetherScheduling(LoadScopeScheduling):
    """xdist's scope scheduling over ``together_scope`` (the scopes of two or more tests are handed out
    first, the rest in collection order: the claims' ``SCHEDULE``)."""

    def _split_scope(self, nodeid: str) -> str:
        return together_scope(nodeid)
