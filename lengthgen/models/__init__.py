"""Models: the one-layer head (reference forward + fast per-vocabulary path) and its ensembles."""

from lengthgen.models.head import HeadOutput, OneLayerHead
from lengthgen.models.tables import TableOutput, table_forward

__all__ = ["HeadOutput", "OneLayerHead", "TableOutput", "table_forward"]
