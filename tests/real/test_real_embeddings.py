"""Embeddings of feedback examples against a real embedding server (issue 17):
infinity serving all-MiniLM-L6-v2 (scripts/local-embeddings.sh), straight from a
profile whose provider_endpoint is that server.

No chat model is involved: negative feedback with the corrected SQL may name a
statement never run (as Oracle allows), and showprompt builds the NL2SQL prompt,
with the examples it finds, without asking one.  Every embedding request goes to
the real server, so each one that succeeds proves the extension's wire (path,
model id, input list) is the one infinity speaks.

The questions were chosen with the model's cosines measured beside the test
(0.73 for the paraphrase, 0.28 and 0.40 for the others); the test measures them
again through the server, so a different model behind LOCAL_EMBED_URL fails on
the premise, not on the extension.
"""

from __future__ import annotations

import json
import math
import urllib.request

import pytest
from helpers import generate
from real.real_fixtures import embedder, local_embeddings, sh  # noqa: F401 - fixtures

pytestmark = pytest.mark.real

QUESTION = "How many customers are there?"
CORRECTION = "SELECT count(*) AS customers FROM sh.customers"
# Shares no word with QUESTION once stop words are dropped: full text cannot find it.
PARAPHRASE = "What is the number of clients we have?"
UNRELATED = "Which three products sold best?"
# Shares most words with QUESTION but means something else.
LOOKALIKE = "How many countries are there?"
MIN_COSINE = 0.6   # nl2sql/examples.py: an example counts from this cosine on


def server_embedding(server, text: str) -> list[float]:
    """The server's embedding of text, asked directly (the premise, not the extension)."""
    req = urllib.request.Request(
        server.url + "/v1/embeddings", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": server.name, "input": [text]}).encode())
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)["data"][0]["embedding"]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def correct(conn, question: str = QUESTION, sql: str = CORRECTION) -> None:
    """Negative feedback with the corrected SQL for a question: an example (embedded)."""
    conn.execute("select dbms_cloud_ai.feedback('E', sql_text => %s, feedback_type => 'negative', "
                 "response => %s)", (f"select ai showsql {question}", sql))


def prompt_of(conn, question: str, **kw) -> str:
    """The user message showprompt would send for an NL2SQL question."""
    out = json.loads(generate(conn, question, "E", "showprompt", **kw))
    return [m for m in out if m.get("role") == "user"][-1]["content"]


def embedding_calls(conn) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_calls "
                       "where purpose = 'embedding' order by created")
    cols = [d.name for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_the_premise_the_servers_cosines(local_embeddings):
    q = server_embedding(local_embeddings, QUESTION)
    assert cosine(q, server_embedding(local_embeddings, PARAPHRASE)) >= MIN_COSINE
    assert cosine(q, server_embedding(local_embeddings, UNRELATED)) < MIN_COSINE
    assert cosine(q, server_embedding(local_embeddings, LOOKALIKE)) < MIN_COSINE


def test_a_correction_is_found_by_meaning_not_by_words(embedder, sh):
    correct(embedder)
    found = prompt_of(embedder, PARAPHRASE)
    assert f'"user_prompt": {json.dumps(QUESTION)}' in found
    assert f'"sql_query": {json.dumps(CORRECTION)}' in found     # as the user wrote it
    for other in (UNRELATED, LOOKALIKE):
        assert '"user_prompt": ' not in prompt_of(embedder, other), other
    # Without this embedding model (a per-call override naming another one) the examples
    # are found by their words, and the paraphrase shares none: the embedding did the work.
    assert '"user_prompt": ' not in prompt_of(
        embedder, PARAPHRASE, attributes=json.dumps({"embedding_model": "another-model"}))


def test_the_stored_embedding_is_the_models_unit_vector(embedder, sh, db, local_embeddings):
    correct(embedder)
    vector, model = db.admin.execute(
        "select embedding, embedding_model from dbms_cloud_ai._example "
        "where question = %s", (QUESTION,)).fetchone()
    assert model == local_embeddings.name
    assert len(vector) == 384
    assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0, abs=1e-4)
    # The very vector the server gives for the question (the extension only normalises it).
    assert cosine(vector, server_embedding(local_embeddings, QUESTION)) == pytest.approx(1.0, abs=1e-4)


def test_embedding_calls_are_recorded_with_estimated_tokens(embedder, sh, local_embeddings):
    correct(embedder)
    prompt_of(embedder, PARAPHRASE)
    calls = embedding_calls(embedder)
    assert [c["action"] for c in calls] == ["FEEDBACK", "SHOWPROMPT"]
    for c, text in zip(calls, (QUESTION, PARAPHRASE)):
        assert c["status"] == "ok" and c["error_sqlstate"] is None
        assert c["model"] == local_embeddings.name
        # infinity's usage counts characters: the extension estimates tokens instead.
        assert c["tokens_estimated"] is True
        assert 0 < c["input_tokens"] < len(text)
        assert c["output_tokens"] == 0
