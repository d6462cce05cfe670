"""Kinds and operations of NL2SQL feedback (dbms_cloud_ai.feedback)."""

import enum

__all__ = ["FeedbackOperation", "FeedbackType"]


class FeedbackType(enum.StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"

    def __str__(self):
        return self.value


class FeedbackOperation(enum.StrEnum):
    ADD = "add"
    DELETE = "delete"

    def __str__(self):
        return self.value
