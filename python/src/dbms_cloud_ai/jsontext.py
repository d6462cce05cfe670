"""JSON text from outside the package: a provider's body, a model's answer, a
user's argument.

``json.loads`` raises RecursionError, not ValueError, on input nested deeper
than the interpreter's recursion limit (``[[[[...]]]]`` 100,000 deep, a few
hundred kilobytes).  Every caller already treats ValueError as "not valid
JSON"; ``loads`` makes hostile nesting one more case of it instead of an
internal error."""

from __future__ import annotations

import json


def loads(text):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON text nested too deeply") from None
