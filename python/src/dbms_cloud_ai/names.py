"""Oracle's rules for object names given as strings (profiles, credentials, agent objects).

Oracle upper-cases an unquoted name and keeps a double-quoted one as written,
so ``'my_profile'`` and ``'MY_PROFILE'`` are the same profile while
``'"my_profile"'`` is another.  Unquoted names must be simple SQL names: a
letter, then letters, digits, ``_``, ``$`` or ``#``.
"""

from __future__ import annotations

import re

from .errors import InvalidParameter, NullValue

_SIMPLE = re.compile(r"[A-Za-z][A-Za-z0-9_$#]*\Z")

# Oracle accepts 125 characters for a profile name and rejects 126.
MAX_LEN = {"profile": 125, "credential": 128, "vector index": 128,
           "tool": 128, "task": 128, "agent": 128, "team": 128}


def normalize(raw: str | None, kind: str) -> str:
    """Return the stored form of a profile or credential name."""
    arg = kind.replace(" ", "_")
    hint = f"Pass the {kind} name as a string, for example '{arg.upper()}_1'."
    if raw is None:
        raise NullValue(f"{arg}_name must not be NULL", hint=hint)
    name = raw.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = name[1:-1]
        if not name or '"' in name or "\x00" in name:
            raise InvalidParameter(f"invalid {kind} name {raw!r}", hint=hint)
    else:
        if not _SIMPLE.match(name):
            raise InvalidParameter(
                f"invalid {kind} name {raw!r}",
                detail="An unquoted name starts with a letter and contains only letters, "
                "digits, _, $ and #; put other names in double quotes.",
                hint=hint,
            )
        name = name.upper()
    if len(name) > MAX_LEN[kind]:
        raise InvalidParameter(
            f"{kind} name is too long ({len(name)} characters, at most {MAX_LEN[kind]})",
            hint=hint,
        )
    return name


def feedback_store_view(profile_name: str) -> str | None:
    """Oracle's <PROFILE>_FEEDBACK_VECINDEX$VECTAB as PostgreSQL spells an
    unquoted name (lower case; a profile name of mixed case as it is), cut to
    PostgreSQL's 63 bytes as PostgreSQL cuts the name in a query: Oracle's
    names run longer (its SDK's test profiles have 43 characters and more), and
    the cut name is what ``select ... from <PROFILE>_FEEDBACK_VECINDEX$VECTAB``
    reads."""
    base = profile_name.lower() if profile_name == profile_name.upper() else profile_name
    name = (base + "_feedback_vecindex$vectab").encode()[:63]
    return name.decode(errors="ignore")  # a character cut in two is left out, as PostgreSQL does
