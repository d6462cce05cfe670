"""Arguments of generate_synthetic_data: one table (object_name) or several (object_list)."""

import json
from collections.abc import Mapping
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass

__all__ = ["SyntheticDataAttributes", "SyntheticDataParams"]


@dataclass
class SyntheticDataParams(SelectAIDataClass):
    """The params JSON: sample_rows, table_statistics, priority, comments.

    Unset values are left out, so the database applies its defaults."""

    sample_rows: int | None = None
    table_statistics: bool | None = None
    priority: str | None = None
    comments: bool | None = None



@dataclass
class SyntheticDataAttributes(SelectAIDataClass):
    """Which table(s) to fill, how many rows, and how (params, user_prompt)."""

    object_name: str | None = None
    object_list: list[Mapping] | None = None
    owner_name: str | None = None
    params: SyntheticDataParams | None = None
    record_count: int | None = None
    user_prompt: str | None = None

    def __post_init__(self):
        params = self.params
        if isinstance(params, (str, bytes, bytearray)):
            params = json.loads(params)
        if isinstance(params, Mapping):
            params = SyntheticDataParams(**params)
        if params is not None and not isinstance(params, SyntheticDataParams):
            raise TypeError("'params' must be an object of type SyntheticDataParams")
        self.params = None
        super().__post_init__()
        self.params = params

    def dict(self, exclude_null=True):
        """The function's arguments: params and object_list as JSON text."""
        out = {}
        for key, value in vars(self).items():
            if value is None and exclude_null:
                continue
            if isinstance(value, SyntheticDataParams):
                value = value.json(exclude_null=exclude_null)
            elif isinstance(value, list):
                value = json.dumps(value)
            out[key] = value
        return out

    def prepare(self) -> dict:
        """The arguments for the database, after checking one target is named."""
        if self.object_name and self.object_list:
            raise ValueError("Both object_name and object_list cannot be set")
        if not self.object_name and not self.object_list:
            raise ValueError("One of object_name and object_list should be set")
        return self.dict()
