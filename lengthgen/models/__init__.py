"""Models: the one-layer head (reference forward + fast per-vocabulary path) and its ensembles."""

from lengthgen.models.one_layer.head import HeadOutput, OneLayerHead
from lengthgen.models.one_layer.fast import TableOutput, table_forward

__all__ = ["HeadOutput", "OneLayerHead", "TableOutput", "table_forward"]
