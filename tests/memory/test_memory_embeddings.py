"""Long-term memories found by meaning (issue 17): with the profile's
embedding_model, promotion embeds each new fact once, and first-turn recall and
the search_memories tool embed the question (the query) once and put the
memories at cosine >= embeddings.MIN_FACT_COSINE first.  Without embedding_model,
or while the subject has no memory embedded with that model, nothing is
embedded and memories are found by words as before.

The fake LLM's embedding endpoint answers with scripted vectors (8
dimensions): DOG for the fact "My dog is called Pixel", PET (cosine 0.8 with
DOG) for questions about a pet, FAR (cosine 0 with both) for anything else.
"My dog is called Pixel" shares no word with "What pet do I have?": only
meaning finds it.
"""

from __future__ import annotations

import json

import pytest
from fake_llm import Answer, Raw, Vectors
from helpers import generate
from memory.test_memory_recall import (  # noqa: F401 - gateway and mem are fixtures
    calls,
    end_user,
    gateway,
    mem,
    only_result,
    returned_facts,
    search_call,
    set_recall_tokens,
    sources,
    system_recall,
)
from memory_helpers import conversation, memories, memory_profile, promote, say

DOG_FACT = "My dog is called Pixel"
PARIS_FACT = "I live in Paris"
PET_QUESTION = "What pet do I have?"
REX_FACT = "Rex is my dog"                 # bob's
FIDO_FACT = "Fido is my dog"               # a gateway visitor's
DOG = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
PET = [0.8, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
FAR = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
OTHER = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def vec(v):
    return Vectors([v])


def learn(db, conn, llm, fact, vector=None, question=None):
    """``conn``'s subject states ``fact`` in a conversation of its own, promoted
    at once.  The fake answers ``question`` for the first turn's embedding (when
    the subject already has embedded memories), then ``vector`` for the fact's."""
    for v in (question, vector):
        if v is not None:
            llm.embed_script(vec(v))
    say(conn, "remember: " + fact, conversation(conn, "learn"))
    promote(db)
    assert fact in memories(conn)


def embedded(db, subject=None) -> dict[str, tuple]:
    """fact -> (embedding, embedding_model), as stored (superuser: no RLS)."""
    rows = db.admin.execute(
        "select fact, embedding, embedding_model from dbms_cloud_ai._memory "
        "where %s::text is null or subject = %s", (subject, subject)).fetchall()
    return {f: (e, m) for f, e, m in rows}


def inputs(llm, since=0) -> list[str]:
    """The texts of the embedding requests since request ``since``."""
    embeds = {id(r) for r in llm.embedding_requests}
    return [t for r in llm.requests[since:] if id(r) in embeds for t in r.json["input"]]


def tool_round(conn, llm, question, cid, call):
    """A later turn where the model asks for one search, then answers:
    (the answer, the chat request that carried the tool result); embedding
    requests are not counted here."""
    n = len(llm.chat_requests)
    llm.script(call, Answer("final answer"))
    answer = say(conn, question, cid)
    reqs = llm.chat_requests[n:]
    assert len(reqs) == 2, [r.json for r in reqs]
    return answer, reqs[1]


@pytest.fixture
def dog(db, alice, mem):
    """alice's profile P has embedding_model e; she said her dog is called Pixel,
    promoted with its embedding DOG."""
    memory_profile(alice, mem, embedding_model="e")
    learn(db, alice, mem, DOG_FACT, DOG)
    return mem


# --- promotion ------------------------------------------------------------------------------

def test_each_new_fact_is_embedded_once_when_stored(db, alice, dog):
    [req] = dog.embedding_requests
    assert req.path == "/v1/embeddings" and req.json["model"] == "e"
    assert req.json["input"] == [DOG_FACT]
    vector, model = embedded(db)[DOG_FACT]
    assert model == "e" and vector == pytest.approx(DOG)
    [call] = calls(alice, "embedding")
    assert (call["status"], call["profile_name"]) == ("ok", "P")

    # Two facts in one conversation: one request each, in one run.
    n = len(dog.requests)
    cid = conversation(alice, "two")
    dog.embed_script(vec(OTHER), vec(FAR), vec(OTHER))  # the first turn's question, two facts
    say(alice, "remember: I live in Paris", cid)
    say(alice, "remember: I drink jasmine tea", cid)
    promote(db)
    assert sorted(inputs(dog, n)) == sorted(["remember: I live in Paris", PARIS_FACT,
                                             "I drink jasmine tea"])
    assert all(m == "e" for _, m in embedded(db).values())

    # Said again: a duplicate, not embedded again.
    n = len(dog.requests)
    cid = conversation(alice, "again")
    dog.embed_script(vec(FAR))                        # the first turn's question, nothing more
    say(alice, "remember: " + DOG_FACT, cid)
    promote(db)
    assert inputs(dog, n) == ["remember: " + DOG_FACT]
    assert len(embedded(db)) == 3


def test_an_embedding_failure_stores_the_fact_without_a_vector(db, alice, mem):
    memory_profile(alice, mem, embedding_model="e")
    mem.embed_script(Raw(400, {"error": {"message": "no such model"}}))
    learn(db, alice, mem, DOG_FACT)
    assert embedded(db) == {DOG_FACT: (None, None)}
    [job] = db.admin.execute("select status, reason, facts_stored from dbms_cloud_ai._memory_job").fetchall()
    assert job == ("done", "stored", 1)
    [failed] = calls(alice, "embedding")
    assert (failed["status"], failed["error_sqlstate"], failed["http_status"]) == ("error", "LL004", 400)

    # Nothing of model e is stored: recall and the tool find it by words, embedding nothing.
    n = len(mem.requests)
    cid = conversation(alice, "later")
    say(alice, "What pet do I have?", cid)
    assert DOG_FACT in system_recall(mem.requests[n])
    _, followup = tool_round(alice, mem, "and its name?", cid, search_call("dog"))
    assert returned_facts(only_result(followup)["content"]) == [DOG_FACT]
    assert inputs(mem, n) == []

    # Extracted again later, the fact gets its vector then.
    mem.embed_script(vec(DOG))
    learn(db, alice, mem, DOG_FACT)
    assert embedded(db)[DOG_FACT][1] == "e"


def test_no_embedding_without_embedding_model(db, alice, mem):
    memory_profile(alice, mem)
    learn(db, alice, mem, DOG_FACT)
    assert mem.embedding_requests == []
    assert embedded(db) == {DOG_FACT: (None, None)}


# --- recall and the tool --------------------------------------------------------------------

@pytest.mark.parametrize("model", [None, "e"])
def test_a_memory_is_found_by_meaning_only_with_embedding_model(db, alice, mem, model):
    memory_profile(alice, mem, **({"embedding_model": model} if model else {}))
    learn(db, alice, mem, DOG_FACT, DOG if model else None)
    learn(db, alice, mem, PARIS_FACT, FAR if model else None, OTHER if model else None)
    assert len(mem.embedding_requests) == (3 if model else 0)   # DOG, the question, PARIS

    # First turn, room for one fact: PARIS shares the word "i" with the question
    # (and is newer); DOG is close in meaning.
    set_recall_tokens(db, 9)
    n = len(mem.requests)
    if model:
        mem.embed_script(vec(PET))
    generate(alice, PET_QUESTION)
    recalled = system_recall(mem.chat_requests[-1])
    assert inputs(mem, n) == ([PET_QUESTION] if model else [])
    assert (DOG_FACT in recalled, PARIS_FACT in recalled) == ((True, False) if model else (False, True))
    if model:      # the similarity recorded with the answer is the cosine
        answer = calls(alice, "answer")[-1]
        [src] = sources(alice, answer["call_id"])
        assert src["similarity"] == pytest.approx(0.8, abs=1e-4)

    # The tool: "pet" shares no word with the fact.
    set_recall_tokens(db, 400)
    cid = conversation(alice, "chat")
    if model:
        mem.embed_script(vec(FAR))                    # the first turn's question
    say(alice, "hello", cid)
    n = len(mem.requests)
    if model:
        mem.embed_script(vec(PET))
    _, followup = tool_round(alice, mem, "tell me about my pet", cid, search_call("pet"))
    result = json.loads(only_result(followup)["content"])
    # By meaning: the dog alone; by words nothing matched, so the newest facts come back.
    assert [m["fact"] for m in result["memories"]] == ([DOG_FACT] if model else [PARIS_FACT, DOG_FACT])
    assert inputs(mem, n) == (["pet"] if model else [])
    # Words still find what they found: the union, the closest in meaning first.
    n = len(mem.requests)
    if model:
        mem.embed_script(vec(PET))
    _, followup = tool_round(alice, mem, "and where?", cid, search_call("Paris pet"))
    assert returned_facts(only_result(followup)["content"]) == (
        [DOG_FACT, PARIS_FACT] if model else [PARIS_FACT])
    assert len(inputs(mem, n)) == (1 if model else 0)
    assert len(calls(alice, "embedding")) == len(mem.embedding_requests)


def test_no_embedding_request_while_no_memory_has_the_profiles_model(db, alice, mem):
    memory_profile(alice, mem)
    learn(db, alice, mem, DOG_FACT)                   # stored without a vector
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', 'e')")
    n = len(mem.requests)
    cid = conversation(alice, "chat")
    say(alice, PET_QUESTION, cid)
    assert DOG_FACT in system_recall(mem.requests[n])
    _, followup = tool_round(alice, mem, "its name?", cid, search_call("dog"))
    assert returned_facts(only_result(followup)["content"]) == [DOG_FACT]
    assert mem.embedding_requests == []

    # Memories of another embedding model do not count either.
    db.admin.execute("update dbms_cloud_ai._memory set embedding = %s, embedding_model = 'old'",
                     (DOG,))
    say(alice, PET_QUESTION, conversation(alice, "again"))
    assert mem.embedding_requests == []


def test_a_tool_query_without_words_embeds_nothing(db, alice, dog):
    cid = conversation(alice, "chat")
    dog.embed_script(vec(FAR))
    say(alice, "hello", cid)
    n = len(dog.requests)
    _, followup = tool_round(alice, dog, "anything?", cid, search_call("?!"))
    assert returned_facts(only_result(followup)["content"]) == [DOG_FACT]   # the newest, as before
    assert inputs(dog, n) == []


# --- isolation ------------------------------------------------------------------------------

def test_another_roles_or_subjects_embedded_memory_is_never_returned(db, alice, bob, dog, gateway):
    # bob and a gateway's visitor have a fact with alice's very vector.
    memory_profile(bob, dog, embedding_model="e")
    learn(db, bob, dog, REX_FACT, DOG)
    name, connect = gateway
    gw = connect()
    gw.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', 'e')")
    end_user(gw, "visitor-1")
    learn(db, gw, dog, FIDO_FACT, DOG)
    other = {"subject": "bob", "user": "bob", "organization": "acme", "owner": "bob"}

    for conn, mine in ((alice, DOG_FACT), (bob, REX_FACT), (gw, FIDO_FACT)):
        n = len(dog.requests)
        dog.embed_script(vec(PET))
        cid = conversation(conn, "pets")
        say(conn, PET_QUESTION, cid)
        sent = json.dumps(dog.chat_requests[-1].json)
        assert [f for f in (DOG_FACT, REX_FACT, FIDO_FACT) if f in sent] == [mine]
        dog.embed_script(vec(PET))
        _, followup = tool_round(conn, dog, "my pet?", cid, search_call("pet", **other))
        assert returned_facts(only_result(followup)["content"]) == [mine]
        assert len(inputs(dog, n)) == 2

    # Row-level security: a role reads only the vectors of the memories it holds.
    assert bob.execute("select fact from dbms_cloud_ai._memory where embedding is not null"
                       ).fetchall() == [(REX_FACT,)]

    # Another visitor of the same gateway role has no embedded memory: nothing is embedded.
    end_user(gw, "visitor-2")
    n = len(dog.requests)
    cid = conversation(gw, "v2")
    say(gw, PET_QUESTION, cid)
    _, followup = tool_round(gw, dog, "my pet?", cid, search_call("pet"))
    assert returned_facts(only_result(followup)["content"]) == []
    assert inputs(dog, n) == []


def test_views_do_not_show_the_vector(db, alice, dog):
    for view in ("user_cloud_ai_memories", "dba_cloud_ai_memories"):
        cols = [r[0] for r in db.admin.execute(
            "select column_name from information_schema.columns "
            "where table_schema = 'dbms_cloud_ai' and table_name = %s", (view,))]
        assert cols and not [c for c in cols if "embedding" in c], cols


# --- erasure --------------------------------------------------------------------------------

def float4_arrays(db) -> list[tuple[str, str]]:
    """Every float4[] column of the extension's tables, from the catalog."""
    return db.admin.execute("""
        select c.oid::regclass::text, a.attname::text
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud_ai', 'dbms_cloud') and c.relkind in ('r', 'p')
           and a.attnum > 0 and not a.attisdropped
           and a.atttypid = 'pg_catalog.float4[]'::regtype""").fetchall()


def test_erasure_leaves_no_vector(db, alice, bob, dog):
    memory_profile(bob, dog, embedding_model="e")
    learn(db, bob, dog, "I drink jasmine tea", OTHER)
    cols = float4_arrays(db)
    assert ("dbms_cloud_ai._memory", "embedding") in cols
    admin = db.connect("ai_admin")
    assert admin.execute("select dbms_cloud_ai.erase_memories('alice')").fetchone()[0] == 1
    for table, col in cols:
        found = db.admin.execute(f'select count(*) from {table} where "{col}" = %s::float4[]',
                                 (DOG,)).fetchone()[0]
        assert found == 0, (table, col)
    assert set(embedded(db)) == {"I drink jasmine tea"}       # bob's stays
    # alice's recall has nothing embedded any more: no request.
    n = len(dog.requests)
    say(alice, PET_QUESTION, conversation(alice, "after"))
    assert inputs(dog, n) == []
