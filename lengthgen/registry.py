"""What the claims hand the plugin (``pytest_lengthgen_registry``, implemented by the claims' conftest): the
catalogue of every claim (:class:`lengthgen.catalogue.Catalogue`) and the plan of the multiverse's cells
(:class:`lengthgen.readings.CellPlan`), as plain data. The plugin records both in ``claims.json`` (``"catalogue"``,
``"multiverse_plan"``) and the report reads them from there, so the package knows no claim of its own. No torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from lengthgen.catalogue import Catalogue
from lengthgen.readings import EMPTY as NO_PLAN
from lengthgen.readings import CellPlan


@dataclass(frozen=True)
class Registry:
    """The claims' catalogue and their plan of multiverse cells."""

    catalogue: Catalogue = field(default_factory=Catalogue)  # every claim and prediction, in the catalogue's order
    plan: CellPlan = NO_PLAN  # the multiverse's cells (none: a registry without readings)

    def to_dict(self) -> dict[str, Any]:
        """The two keys a claims.json records."""
        return {"catalogue": self.catalogue.to_dict(), "multiverse_plan": self.plan.to_dict()}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Registry":
        """The registry a claims.json (or :meth:`to_dict`) recorded; empty parts where it recorded none."""
        plan = data.get("multiverse_plan")
        return cls(Catalogue.from_dict(data.get("catalogue") or ()), CellPlan.from_dict(plan) if plan else NO_PLAN)


EMPTY = Registry()
