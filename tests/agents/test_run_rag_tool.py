"""A RAG tool in a team run (issue 33): the agent asks the tool, which narrates
over its profile's vector index (tests/vector_indexes: the fake LLM embeds a
text as a hashed bag of its words), and the answer and its sources come back."""

from __future__ import annotations

import json

from agent_run_helpers import create, own_schema, run_team, team, team_history, tool_history
from fake_llm import Answer, ToolCalls, tool_results
from helpers import raises
from vector_indexes.test_vector_indexes import DOCS, create_index, index_profile, make_docs


def test_a_rag_tool_answers_from_the_index_with_its_sources(db, alice, llm):
    own_schema(db)
    make_docs(alice)
    create_index(alice, llm)
    index_profile(alice, llm, enable_sources=True)
    create(db, alice, "TOOL", "HANDBOOK", {"instruction": "Searches the staff handbook",
                                           "tool_type": "RAG", "tool_params": {"profile_name": "RAG"}})
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("HANDBOOK",)),))
    llm.reset()
    llm.script(ToolCalls([{"name": "HANDBOOK",
                           "arguments": {"query": "When does the cafeteria open in the morning?"}}]),
               Answer("It opens at eight."),
               Answer("The cafeteria opens at eight."))
    assert run_team(alice, "T", "cafeteria hours?") == "The cafeteria opens at eight."
    assert len(llm.embedding_requests) == 1                 # the question, against the index
    chats = [r for r in llm.requests if r not in llm.embedding_requests and r.method == "POST"]
    narrate = json.dumps(chats[1].json)
    assert json.dumps(DOCS[1])[1:-1] in narrate             # the closest chunk, as data
    [result] = [r["content"] for r in tool_results(chats[2].wire, chats[2].json)]
    assert result.startswith("It opens at eight.") and "alice.handbook:1" in result
    [t] = tool_history(alice)
    assert t["tool_name"] == "HANDBOOK" and t["tool_output"] == result
    assert json.loads(t["output"])["status"] == "success"    # Oracle's wrapper (test_3304)


def test_a_rag_tool_whose_profile_names_no_index_is_refused(db, alice, llm):
    own_schema(db)
    create(db, alice, "TOOL", "HANDBOOK", {"instruction": "Searches the staff handbook",
                                           "tool_type": "RAG", "tool_params": {"profile_name": "P"}})
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("HANDBOOK",)),))
    llm.script(ToolCalls([{"name": "HANDBOOK", "arguments": {"query": "cafeteria?"}}]), Answer("unknown"))
    with raises("22023"):
        run_team(alice, "T", "cafeteria hours?")
    assert team_history(alice)[0]["state"] == "FAILED"
