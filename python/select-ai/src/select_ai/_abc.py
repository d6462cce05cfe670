"""The base of the SDK's attribute classes: dataclasses that also read and write like dicts."""

from __future__ import annotations

import json
import types
import typing
from dataclasses import dataclass, fields
from typing import Any


def to_bool(value: Any) -> bool:
    """Oracle's attribute views hold booleans as text: 'true', 'YES', '1' ..."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "t", "yes", "y", "1"):
        return True
    if text in ("false", "f", "no", "n", "0"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


_COERCE = {int: int, float: float, str: str, bool: to_bool}


def _scalar(tp):
    """int for int, Optional[int] or int | None; None for anything else."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    base = args[0] if len(args) == 1 and typing.get_origin(tp) in (typing.Union, types.UnionType) else tp
    return _COERCE.get(base) if isinstance(base, type) else None


@dataclass
class SelectAIDataClass:
    """Fields of Optional[int|float|str|bool] are coerced from the text the views return;
    a JSON text given for a list or mapping field is parsed."""

    def __getitem__(self, item):
        return getattr(self, item)

    def __setitem__(self, key, value):
        setattr(self, key, value)

    @classmethod
    def keys(cls) -> set[str]:
        return {f.name for f in fields(cls)}

    def dict(self, exclude_null: bool = True) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None or not exclude_null}

    def json(self, exclude_null: bool = True) -> str:
        return json.dumps(self.dict(exclude_null=exclude_null))

    def __post_init__(self):
        hints = typing.get_type_hints(type(self))  # resolves string annotations
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            tp = hints.get(f.name)
            coerce = _scalar(tp)
            if coerce is not None:
                setattr(self, f.name, coerce(value))
            elif isinstance(value, (str, bytes, bytearray)) and _is_structured(tp):
                setattr(self, f.name, json.loads(value))


def _is_structured(tp) -> bool:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_is_structured(a) for a in args if a is not type(None))
    return origin in (list, dict, typing.Mapping) or tp in (list, dict)
