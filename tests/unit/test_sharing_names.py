"""How a profile is named when it may be another role's (sharing.parse), offline."""

from __future__ import annotations

import pytest
from dbms_cloud_ai import sharing
from dbms_cloud_ai.errors import InsufficientPrivilege, InvalidParameter, NullValue


@pytest.mark.parametrize("raw, owner, name", [
    ("sales", None, "SALES"),
    ('"my profile"', None, "my profile"),
    ('"alice"."SALES"', "alice", "SALES"),
    ('"ALICE"."SALES"', "ALICE", "SALES"),          # the case-insensitive match is the query's
    ("alice.sales", "alice", "SALES"),
    ("Alice.Sales", "alice", "SALES"),               # unquoted owner folds like PostgreSQL
    (' "alice" . "a.b" ', "alice", "a.b"),          # a dot inside quotes is part of the name
    ('"Data Team".p', "Data Team", "P"),
])
def test_parse(raw, owner, name):
    assert sharing.parse(raw) == sharing.Ref(owner, name)


@pytest.mark.parametrize("raw", ['"alice"."SALES"."X"', '""."SALES"', "alice.", ".sales",
                                 "a b.SALES", "alice.sa les", '"unterminated.x', "a..b"])
def test_parse_refuses(raw):
    with pytest.raises(InvalidParameter):
        sharing.parse(raw)


def test_null_name():
    with pytest.raises(NullValue):
        sharing.parse(None)


def test_display_and_stored_ref_round_trip():
    shown = sharing.display("alice", "SALES")
    assert shown == '"alice"."SALES"'
    assert sharing.parse(sharing.stored_ref(shown)) == sharing.Ref("alice", "SALES")
    assert sharing.parse(sharing.stored_ref("lower case")) == sharing.Ref(None, "lower case")


def test_owner_only_attributes_are_refused_on_a_shared_profile_only():
    with pytest.raises(InsufficientPrivilege):
        sharing.check_overrides('"alice"."P"', "alice", {"provider_endpoint": "http://x"})
    sharing.check_overrides("P", None, {"provider_endpoint": "http://x"})
    sharing.check_overrides('"alice"."P"', "alice", {"temperature": 0.1, "object_list": []})
