"""Condensed history without a server: the window split, the summary request's bounds,
and the conversation attributes."""

from __future__ import annotations

import pytest
from dbms_cloud_ai.conversations import summaries
from dbms_cloud_ai.errors import InvalidParameter


def rows(first, last):
    """Prompt rows newest first, as conversations.for_call reads them."""
    return [{"seq": i, "prompt": f"q{i}", "prompt_response": f"a{i}"} for i in range(last, first - 1, -1)]


def test_split_keeps_the_window_and_the_latest_fallen_out_prompts():
    c = summaries.state({"summarize_history": True}, {})
    window = summaries.split(c, rows(1, 100), 10)
    assert [r["seq"] for r in window] == list(range(91, 101))
    # Read at most length + MAX_FOLD + 1 rows: here everything was given, so the gap is seen.
    assert [r["seq"] for r in c.fallen] == list(range(91 - summaries.MAX_FOLD, 91))
    assert c.gap is True
    c = summaries.state({"summarize_history": True}, {})
    summaries.split(c, rows(1, 13), 10)
    assert [r["seq"] for r in c.fallen] == [1, 2, 3] and c.gap is False
    assert summaries.read_limit(c, 10) == 10 + summaries.MAX_FOLD + 1
    assert summaries.read_limit(None, 10) == 10


def test_state_follows_conversation_then_profile_then_default():
    assert summaries.state({}, {}) is None                                   # off by default
    assert summaries.state({"summarize_history": None}, {"summarize_history": True}).max_tokens == 500
    assert summaries.state({"summarize_history": False}, {"summarize_history": True}) is None
    c = summaries.state({"summarize_history": True, "summary_max_tokens": 80}, {"summary_max_tokens": 900})
    assert c.max_tokens == 80 and c.after == summaries.NO_SEQ and c.generation == 0
    c = summaries.state({"summarize_history": True, "summary": "s", "first_seq": 3, "covers_seq": 9,
                         "prompts": 7, "generation": 4}, {})
    assert (c.summary, c.after, c.prompts, c.generation) == ("s", 9, 7, 4)
    # A row whose summary was erased (a deleted prompt) is no summary: rebuild from the start.
    c = summaries.state({"summarize_history": True, "summary": None, "generation": 5}, {})
    assert c.summary is None and c.after == summaries.NO_SEQ and c.generation == 5


def test_the_request_is_bounded_and_says_when_prompts_were_left_out():
    long = "z" * 10_000
    fallen = [{"seq": 1, "prompt": long, "prompt_response": long}]
    msgs = summaries.request("w" * 10_000, fallen, True, 100)
    assert msgs[0]["content"] == summaries._SYSTEM.format(max_tokens=100)
    user = msgs[1]["content"]
    assert summaries._GAP in user
    assert user.count("z") == 2 * summaries.MAX_TURN_CHARS
    cut = "w" * (100 * summaries.CHARS_PER_TOKEN)   # an oversized previous summary is cut
    assert cut + " [...]" in user and cut + "w" not in user
    assert len(user) < 2 * summaries.MAX_TURN_CHARS + 100 * summaries.CHARS_PER_TOKEN + 400
    msgs = summaries.request(None, [{"seq": 1, "prompt": "q", "prompt_response": "a"}], False, 500)
    # The first summary has no "summary so far" at all (a small model copies a placeholder).
    assert msgs[1]["content"] == ("Exchanges to summarise, oldest first:\nUser: q\nAssistant: a"
                                  "\n\nReply with the summary of these exchanges alone.")
    msgs = summaries.request("s", [{"seq": 2, "prompt": "q", "prompt_response": "a"}], False, 500)
    assert msgs[1]["content"] == ("Summary so far:\ns\n\nExchanges to add, oldest first:\n"
                                  "User: q\nAssistant: a\n\nReply with the updated summary alone.")


def test_the_summary_message_is_labelled_and_first():
    c = summaries.state({"summarize_history": True, "summary": "old", "first_seq": 1, "covers_seq": 2,
                         "prompts": 2}, {})
    window = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    assert summaries.with_summary(c, window) == [summaries.message("old")] + window
    assert summaries.message("old")["content"] == summaries.LABEL + "\nold"
    c.new = {"summary": "new"}
    assert summaries.with_summary(c, window)[0] == summaries.message("new")
    assert summaries.with_summary(None, window) == window


@pytest.mark.parametrize("key,value,expected", [
    ("summarize_history", True, True), ("summarize_history", "false", False),
    ("summarize_history", None, None), ("summary_max_tokens", 50, 50),
    ("summary_max_tokens", "4000", 4000), ("summary_max_tokens", 300.0, 300),
])
def test_conversation_attributes_accepted(key, value, expected):
    assert summaries.conversation_attr(key, value) == expected


@pytest.mark.parametrize("key,value", [
    ("summarize_history", "yes"), ("summarize_history", 1), ("summary_max_tokens", 49),
    ("summary_max_tokens", 4001), ("summary_max_tokens", True), ("summary_max_tokens", "many"),
    ("summary_max_tokens", 10.5),
])
def test_conversation_attributes_refused(key, value):
    with pytest.raises(InvalidParameter) as e:
        summaries.conversation_attr(key, value)
    assert key in e.value.message and e.value.hint
