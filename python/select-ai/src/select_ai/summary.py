"""Parameters of summarize (the database's summary params, as JSON)."""

import enum
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass

__all__ = ["ChunkProcessingMethod", "ExtractivenessLevel", "Style", "SummaryParams"]


class _Named(enum.StrEnum):
    def __str__(self):
        return self.value


class Style(_Named):
    """Paragraphs, or a list of key points."""

    PARAGRAPH = "paragraph"
    LIST = "list"


class ChunkProcessingMethod(_Named):
    """How text longer than the model's window is summarized in parts."""

    ITERATIVE_REFINEMENT = "iterative_refinement"
    MAP_REDUCE = "map_reduce"


class ExtractivenessLevel(_Named):
    """How closely the summary keeps the original wording."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass
class SummaryParams(SelectAIDataClass):
    min_words: int | None = None
    max_words: int | None = None
    summary_style: Style | None = None
    chunk_processing_method: ChunkProcessingMethod | None = None
    extractiveness_level: ExtractivenessLevel | None = None
