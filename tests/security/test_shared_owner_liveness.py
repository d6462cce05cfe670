"""Shared things die with their owner (issue 30, class 2).

A grantee used a shared profile (the owner's attributes and, inside the
package, the owner's key) and a shared vector index (its chunks) for as long as
the rows were there: after DROP ROLE of the owner, until an administrator ran
drop_role_data, grantees kept decrypting and sending the departed owner's key.
Now every cross-role path asks whether the owner is still the live role that
stored the rows, by OID through its role binding (dbms_cloud_ai._role_is_live):
the grant tables' read policies, the owner role's credential read, and the
package's own "own or shared" checks that administrators' wider policies would
otherwise widen.  Dropped, or dropped and created again under the same name,
the owner's shared things are unusable at once; the grantee never reaches the
model with the owner's key.
"""

from __future__ import annotations

import json
import uuid

import pytest
from fake_llm import Answer
from helpers import drop_role, generate, make_profile, make_role, raises

OWNER_KEY = "sk-departed-owner-0123456789"
DOCS = {1: "The office cafeteria opens at eight in the morning and closes at three.",
        2: "Parking permits are issued by the facilities team on the second floor."}


@pytest.fixture
def owner(db):
    name = f"owner_{uuid.uuid4().hex[:8]}"
    make_role(db.admin, name)
    yield name
    drop_role(db.admin, name)
    if db.admin.execute("select 1 from dbms_cloud_ai._role_binding where role_name = %s",
                        (name,)).fetchone():
        db.admin.execute("select dbms_cloud_ai.drop_role_data(%s)", (name,))


def depart(db, name, how):
    """The owner leaves: dropped, or dropped and a new role given its name."""
    drop_role(db.admin, name)
    if how == "recreated":
        make_role(db.admin, name)


@pytest.mark.parametrize("how", ["dropped", "recreated"])
def test_a_shared_profile_dies_with_its_owner(db, llm, bob, owner, how):
    conn = db.connect(owner)
    make_profile(conn, llm, "SALES", key=OWNER_KEY)
    for grantee in ("bob", "ai_admin"):
        conn.execute("select dbms_cloud_ai.grant_profile_access('SALES', %s)", (grantee,))
    admin_user = db.connect("ai_admin")
    ref = f'"{owner}"."SALES"'
    llm.script(Answer("yes"), Answer("yes"))
    assert generate(bob, "hi", ref) == "yes"              # the control: shared, used
    assert generate(admin_user, "hi", ref) == "yes"
    bob.execute("select dbms_cloud_ai.set_profile(%s)", (ref,))
    conn.close()
    depart(db, owner, how)
    llm.reset()
    for grantee in (bob, admin_user):          # an administrator grantee too: its policies read more
        with raises("42704"):
            generate(grantee, "hi", ref)
        listed = grantee.execute("select count(*) from dbms_cloud_ai.all_cloud_ai_profiles "
                                 "where owner = %s", (owner,)).fetchone()[0]
        assert listed == 0
    with raises("42704"):                      # the session's profile, set while it was shared
        bob.execute("select dbms_cloud_ai.select_ai('chat hi')")
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.set_profile(%s)", (ref,))
    assert bob.execute("select count(*) from dbms_cloud_ai._profile_grant").fetchone()[0] == 0
    assert llm.requests == []                  # the departed owner's key was never sent
    if how == "recreated":                     # the new role of that name uses nothing either
        heir = db.connect(owner)
        with raises("42501"):
            generate(heir, "hi", "SALES")
        assert llm.requests == []


@pytest.mark.parametrize("how", ["dropped", "recreated"])
def test_a_shared_vector_index_dies_with_its_owner(db, llm, bob, owner, how):
    table = f"public.docs_{owner}"
    db.admin.execute(f"create table {table} (id int primary key, body text)")
    for k, v in DOCS.items():
        db.admin.execute(f"insert into {table} values (%s, %s)", (k, v))
    db.admin.execute(f"grant select on {table} to {owner}")
    conn = db.connect(owner)
    make_profile(conn, llm, "EMB", key=OWNER_KEY, embedding_model="text-embedding-3-small")
    conn.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (json.dumps(
        {"location": f"table:{table}(id, body)", "profile_name": "EMB"}),))
    conn.execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'bob')")
    conn.execute("select dbms_cloud_ai.grant_profile_access('EMB', 'bob')")
    make_profile(bob, llm, "BRAG", credential="BCRED", key="sk-bob-own",
                 vector_index_name=f'"{owner}"."DOCS"')
    llm.script(Answer("At eight."))
    assert generate(bob, "When does the cafeteria open?", "BRAG", "narrate") == "At eight."
    assert bob.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 2
    conn.close()
    try:
        depart(db, owner, how)
        llm.reset()
        with raises("42704"):
            generate(bob, "When does the cafeteria open?", "BRAG", "narrate")
        assert llm.requests == []              # not even the question's embedding
        for q in ("select count(*) from dbms_cloud_ai._vector_chunk",
                  "select count(*) from dbms_cloud_ai._vector_index",
                  "select count(*) from dbms_cloud_ai.all_cloud_vector_indexes",
                  "select count(*) from dbms_cloud_ai.all_cloud_vector_index_attributes"):
            assert bob.execute(q).fetchone()[0] == 0, q
    finally:
        db.admin.execute(f"drop table {table}")


def test_the_owner_role_reads_no_credential_of_a_departed_owner(db, llm, owner):
    """The credential read of a shared profile (dbms_cloud_ai_owner's policies) asks
    too: with the grant still there and the package's check passed by, no row."""
    conn = db.connect(owner)
    make_profile(conn, llm, "SALES", key=OWNER_KEY)
    conn.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'PUBLIC')")
    conn.close()
    read = """select count(*) from dbms_cloud._credential c
               where c.owner = %s and exists (select from dbms_cloud_ai._profile_grant g
                                               where g.owner = c.owner)"""
    probe = db.connect("postgres")
    probe.execute("set role dbms_cloud_ai_owner")
    probe.execute("select set_config('dbms_cloud_ai.caller', 'bob', false)")
    assert probe.execute(read, (owner,)).fetchone()[0] == 1          # the control
    depart(db, owner, "dropped")
    assert probe.execute(read, (owner,)).fetchone()[0] == 0
