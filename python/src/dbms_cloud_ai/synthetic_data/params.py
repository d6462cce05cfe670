"""GENERATE_SYNTHETIC_DATA's arguments and params, checked before any request."""

from __future__ import annotations

from dataclasses import dataclass

from .. import attributes, jsontext
from ..errors import DcaError, InvalidJson, InvalidParameter, NullValue

FN = "dbms_cloud_ai.generate_synthetic_data()"
HINT = (f"Call {FN} with params such as '{{\"sample_rows\": 5, \"table_statistics\": true, "
        "\"priority\": \"MEDIUM\", \"comments\": true}'.")
LIST_HINT = (f"Call {FN} with object_list => '[{{\"owner\": \"SH\", \"name\": \"CUSTOMERS\", "
             "\"record_count\": 10, \"user_prompt\": \"...\"}]'.")

PARAMS = ("sample_rows", "table_statistics", "priority", "comments")
# Oracle's priority sets how many requests run in parallel; here requests run
# one after another, and priority sets how many rows one request asks for.
PRIORITY_ROWS = {"HIGH": 20, "MEDIUM": 10, "LOW": 5}
MAX_SAMPLE_ROWS = 100
MAX_RECORD_COUNT = 1_000_000


@dataclass(frozen=True)
class Options:
    sample_rows: int = 0
    table_statistics: bool = False
    priority: str = "HIGH"
    comments: bool = False

    @property
    def batch_rows(self) -> int:
        return PRIORITY_ROWS[self.priority]


@dataclass(frozen=True)
class Target:
    """One table to fill, as the caller named it (Oracle's name rules apply later)."""

    owner: str | None
    name: str
    record_count: int
    user_prompt: str | None = None


def _flag(key, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidParameter(f"{key} must be true or false, not {attributes._show(value)}", hint=HINT)


def _count(key, value, limit, hint, *, what="") -> int:
    given = value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{what}{key} must be an integer, not {attributes._show(given)}",
                               hint=hint)
    if value < 0:
        raise InvalidParameter(f"{what}{key} cannot be smaller than 0", hint=hint)
    if value > limit:
        raise InvalidParameter(f"{what}{key} is too large ({value}, at most {limit})", hint=hint)
    return value


def options(params_json) -> Options:
    try:
        raw = attributes.parse_json_object(params_json, "params")
    except DcaError as e:
        e.hint = HINT
        raise
    out = {}
    for raw_key, value in raw.items():
        key = raw_key.strip().lower()
        if key not in PARAMS:
            raise InvalidParameter(f"unknown generate_synthetic_data parameter {raw_key!r}",
                                   detail="Valid parameters: " + ", ".join(PARAMS) + ".", hint=HINT)
        if value is None:
            continue
        if key == "sample_rows":
            out[key] = _count(key, value, MAX_SAMPLE_ROWS, HINT)
        elif key == "priority":
            p = value.strip().upper() if isinstance(value, str) else None
            if p not in PRIORITY_ROWS:
                raise InvalidParameter(f"Invalid value for priority: {attributes._show(value)}",
                                       detail="priority is HIGH, MEDIUM or LOW.", hint=HINT)
            out[key] = p
        else:
            out[key] = _flag(key, value)
    return Options(**out)


def _text(value, what) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidParameter(f"{what} must be a string, not {attributes._show(value)}",
                               hint=LIST_HINT)
    return value if value.strip() else None


def single(object_name, owner_name, record_count, user_prompt) -> list[Target]:
    """The first form: one table."""
    if object_name is None or not object_name.strip():
        raise NullValue("object_name must not be NULL or empty",
                        hint=f"Call {FN} with object_name => 'TABLE_NAME'.")
    if record_count is None:
        raise NullValue("record_count must not be NULL",
                        hint=f"Call {FN} with record_count => 10.")
    count = _count("record_count", record_count, MAX_RECORD_COUNT, HINT)
    owner = owner_name if owner_name is not None and owner_name.strip() else None
    return [Target(owner, object_name, count, _text(user_prompt, "user_prompt"))]


def object_list(text) -> list[Target]:
    """The second form: a JSON array of {owner, name, record_count, user_prompt}."""
    if text is None:
        raise NullValue("object_list must not be NULL", hint=LIST_HINT)
    try:
        items = jsontext.loads(text)
    except ValueError as e:
        raise InvalidJson("object_list is not valid JSON", detail=str(e), hint=LIST_HINT) from None
    if not isinstance(items, list) or not items:
        raise InvalidParameter("object_list must be a non-empty JSON array of objects",
                               hint=LIST_HINT)
    out = []
    for i, item in enumerate(items, 1):
        where = f"object_list element {i}: "
        if not isinstance(item, dict):
            raise InvalidParameter(where + "not an object", hint=LIST_HINT)
        fields = {k.strip().lower(): v for k, v in item.items()}
        unknown = sorted(set(fields) - {"owner", "name", "record_count", "user_prompt"})
        if unknown:
            raise InvalidParameter(where + f"unknown key {unknown[0]!r}", hint=LIST_HINT)
        name, owner = _text(fields.get("name"), where + "name"), _text(fields.get("owner"),
                                                                       where + "owner")
        if name is None or owner is None:
            raise InvalidParameter(where + f"needs a \"{'owner' if name else 'name'}\"",
                                   hint=LIST_HINT)
        if fields.get("record_count") is None:
            raise InvalidParameter(where + "needs a \"record_count\"", hint=LIST_HINT)
        out.append(Target(owner, name,
                          _count("record_count", fields["record_count"], MAX_RECORD_COUNT,
                                 LIST_HINT),
                          _text(fields.get("user_prompt"), where + "user_prompt")))
    return out
