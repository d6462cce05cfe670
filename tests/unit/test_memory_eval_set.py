"""The memory-extraction evaluation set (bench/memory_eval.json, issue 17) and its scoring.

The set must be able to tell a good extractor from a bad one: enough conversations,
every expected fact and non-fact written as keyword groups that a memory can match,
conversations without any fact, and non-facts of each kind the extraction prompt
excludes.  The scoring (bench/eval_memory.py) is checked on small cases."""

from __future__ import annotations

import json

import pytest
from paths import ROOT, bench_module

SET = ROOT / "bench" / "memory_eval.json"


def _load_eval():
    return bench_module("eval_memory")


ev = _load_eval()
CONVOS = json.loads(SET.read_text(encoding="utf-8"))["conversations"]


def _keyword_ok(k) -> bool:
    """Substring matching: a lone letter or digit would match almost any memory
    (" R " with its spaces, or a symbol such as "€", is fine)."""
    return isinstance(k, str) and bool(k.strip()) and (len(k) >= 2 or not k.isalnum())


def _groups_ok(groups) -> bool:
    return (isinstance(groups, list) and len(groups) >= 1
            and all(isinstance(g, list) and g and all(_keyword_ok(k) for k in g) for g in groups))


def test_the_set_is_big_enough_and_mixed():
    assert len(CONVOS) >= 12
    ids = [c["id"] for c in CONVOS]
    assert len(set(ids)) == len(ids), "conversation ids are unique (they name the end users)"
    with_facts = [c for c in CONVOS if c["facts"]]
    assert len(with_facts) >= 8, "most conversations state a durable fact"
    assert len(CONVOS) - len(with_facts) >= 4, "some state none (the prompt: most state none)"
    assert sum(len(c["facts"]) for c in CONVOS) >= 12


def test_every_conversation_has_user_turns_and_non_facts():
    for c in CONVOS:
        assert c["turns"], c["id"]
        for t in c["turns"]:
            assert isinstance(t.get("user"), str) and t["user"].strip(), c["id"]
            assert t.get("assistant") is None or isinstance(t["assistant"], str), c["id"]
        assert c["non_facts"], f"{c['id']}: no non-facts"


@pytest.mark.parametrize("convo", CONVOS, ids=lambda c: c["id"])
def test_facts_and_non_facts_are_keyword_groups(convo):
    said = " ".join(t["user"] for t in convo["turns"]).casefold()
    for f in convo["facts"]:
        assert isinstance(f.get("fact"), str) and f["fact"], convo["id"]
        assert _groups_ok(f.get("keywords")), f"{convo['id']}: {f}"
        assert ev.matches(f["fact"], f["keywords"]), \
            f"{convo['id']}: the fact as written must match its own keywords: {f}"
        # the user said it: some keyword of its first group is in the user's words
        assert any(k.casefold() in said for k in f["keywords"][0]), f"{convo['id']}: {f}"
    for n in convo["non_facts"]:
        assert n.get("kind") and n.get("text"), convo["id"]
        assert _groups_ok(n.get("keywords")), f"{convo['id']}: {n}"
        for f in convo["facts"]:
            assert not ev.matches(f["fact"], n["keywords"]), \
                f"{convo['id']}: a correct fact must not hit the non-fact {n['text']!r}"


def test_non_facts_cover_what_the_prompt_excludes():
    kinds = {n["kind"] for c in CONVOS for n in c["non_facts"]}
    assert {"question", "request", "assistant", "hypothetical"} <= kinds
    # an assistant non-fact is something the canned assistant said, not the user
    for c in CONVOS:
        assistant = " ".join(t.get("assistant") or "" for t in c["turns"]).casefold()
        for n in c["non_facts"]:
            if n["kind"] == "assistant":
                assert any(k.casefold() in assistant for k in n["keywords"][0]), c["id"]


def test_scoring_counts_precision_recall_and_non_fact_hits():
    convo = {"id": "x",
             "facts": [{"fact": "lives in Lisbon", "keywords": [["Lisbon"], ["live", "based"]]},
                       {"fact": "vegetarian", "keywords": [["vegetarian", "vegan"]]}],
             "non_facts": [{"kind": "question", "text": "New York", "keywords": [["new york"]]}]}
    s = ev.score_conversation(convo, ["User is based in LISBON", "Lisbon is nice",
                                      "Asked about New York time"])
    assert (s["extracted"], s["correct"], s["expected"], s["found"]) == (3, 1, 2, 1)
    assert s["missed"] == ["vegetarian"]
    assert [h["kind"] for h in s["non_fact_hits"]] == ["question"]
    empty = {"id": "y", "facts": [], "non_facts": convo["non_facts"]}
    t = ev.totals([s, ev.score_conversation(empty, ["Vegan"])])
    assert (t["extracted"], t["correct"], t["expected"], t["found"]) == (4, 1, 2, 1)
    assert t["precision"] == pytest.approx(0.25) and t["recall"] == pytest.approx(0.5)
    assert t["memories_in_fact_free_conversations"] == 1
    assert ev.totals([ev.score_conversation(empty, [])])["precision"] is None


def test_relay_url_follows_the_adapter():
    assert ev.upstream_chat_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1/chat/completions"
    assert ev.upstream_chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert ev.upstream_chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
