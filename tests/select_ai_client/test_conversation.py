"""The select_ai client's conversations (select_ai/conversation.py) against a real server:
what Oracle's suite does not check.  Attributes read back with their types, another role's
conversation, the ORA- codes of the extension's refusals, and chat sessions that really
carry the history to the model (the fake LLM records what it received)."""

from __future__ import annotations

import datetime

import oracledb
import pytest
import select_ai
from fake_llm import Answer, last_user_text
from helpers import make_profile
from select_ai import AsyncConversation, Conversation, ConversationAttributes
from select_ai.errors import ConversationNotFoundError
from select_ai_client.test_client_foundation import dsn, ora

UNKNOWN = "40D1E4B2-8E1B-10C4-E063-1A5B000A677D"


@pytest.fixture
def as_alice(db):
    """select_ai connected to the test's database as alice."""
    select_ai.connect(user="alice", password="", dsn=dsn(db))
    yield
    select_ai.disconnect()


@pytest.fixture
async def async_as_alice(db):
    await select_ai.async_connect(user="alice", password="", dsn=dsn(db))
    yield
    await select_ai.async_disconnect()


@pytest.fixture
def echo(llm, alice):
    """Profile P on the fake LLM, which answers 're: <last user message>'."""
    llm.responder = lambda wire, body: Answer("re: " + last_user_text(wire, body))
    make_profile(alice, llm)
    return llm


def test_attributes_round_trip_with_their_types(as_alice):
    conv = Conversation(attributes=ConversationAttributes(
        title="Q3", description="sales", retention_days=datetime.timedelta(days=30),
        conversation_length=4))
    cid = conv.create()
    fetched = Conversation.fetch(cid)
    assert fetched.conversation_id == cid
    assert fetched.attributes.title == "Q3"
    assert fetched.attributes.description == "sales"
    assert fetched.attributes.retention_days == datetime.timedelta(days=30)
    assert fetched.attributes.conversation_length == 4


def test_set_attributes_keeps_what_it_does_not_name(as_alice, alice):
    conv = Conversation(attributes=ConversationAttributes(title="A", description="kept"))
    conv.create()
    conv.set_attributes(ConversationAttributes(title="B", retention_days=None,
                                               conversation_length=None))
    assert (conv.attributes.title, conv.attributes.description) == ("B", "kept")
    row = alice.execute("select conversation_title, description from "
                        "dbms_cloud_ai.user_cloud_ai_conversations where conversation_id = %s",
                        (conv.conversation_id,)).fetchone()
    assert row == ("B", "kept")


def test_ids_are_matched_whatever_their_case(as_alice):
    conv = Conversation(attributes=ConversationAttributes(title="case"))
    cid = conv.create()
    assert Conversation(conversation_id=cid.lower()).get_attributes().title == "case"


def test_another_roles_conversation_is_not_found(db, as_alice):
    conv = Conversation(attributes=ConversationAttributes(title="alice's"))
    conv.create()
    select_ai.disconnect()
    select_ai.connect(user="bob", password="", dsn=dsn(db))
    with pytest.raises(ConversationNotFoundError):
        Conversation.fetch(conv.conversation_id)
    assert conv.conversation_id not in {c.conversation_id for c in Conversation.list()}
    with pytest.raises(oracledb.DatabaseError) as ei:
        Conversation(conversation_id=conv.conversation_id).delete()
    assert ora(ei) == 20050


@pytest.mark.parametrize("conversation_id", [UNKNOWN, "fake_id"])
def test_refusals_are_ora_20050(as_alice, conversation_id):
    conv = Conversation(conversation_id=conversation_id)
    for call in (conv.delete, lambda: conv.set_attributes(ConversationAttributes(title="x")),
                 lambda: conv.add_tag("k", "v"), lambda: conv.remove_tag("k")):
        with pytest.raises(oracledb.DatabaseError) as ei:
            call()
        assert ora(ei) == 20050
        assert str(ei.value).startswith("ORA-20050")


def test_force_makes_delete_idempotent(as_alice):
    Conversation(conversation_id=UNKNOWN).delete(force=True)
    Conversation(conversation_id=UNKNOWN).delete_prompt(UNKNOWN, force=True)
    with pytest.raises(oracledb.DatabaseError) as ei:
        Conversation(conversation_id=UNKNOWN).delete_prompt(UNKNOWN)
    assert ora(ei) == 20050


def test_chat_session_sends_the_history_and_stores_the_turns(echo, as_alice):
    profile = select_ai.Profile(profile_name="P")
    conv = Conversation(attributes=ConversationAttributes(title="history"))
    with profile.chat_session(conversation=conv) as session:  # creates it: it has no id yet
        assert conv.conversation_id
        assert session.chat("first question") == "re: first question"
        assert session.chat("second question") == "re: second question"
    history = [m["content"] for m in echo.requests[-1].json["messages"] if m["role"] != "system"]
    assert history == ["first question", "re: first question", "second question"]
    prompts = list(conv.list_prompts())
    assert [(p.prompt, p.prompt_response, p.prompt_action.lower(), p.profile_name)
            for p in prompts] == [("first question", "re: first question", "chat", "P"),
                                  ("second question", "re: second question", "chat", "P")]
    assert all(p.conversation_id == conv.conversation_id and p.conversation_title == "history"
               and p.sid and p.serial for p in prompts)
    conv.delete_prompt(prompts[0].conversation_prompt_id)
    assert [p.prompt for p in conv.list_prompts()] == ["second question"]


def test_chat_session_delete_drops_the_conversation(echo, as_alice):
    profile = select_ai.Profile(profile_name="P")
    conv = Conversation(attributes=ConversationAttributes(title="short-lived"))
    conv.create()
    with profile.chat_session(conversation=conv, delete=True) as session:
        session.chat("hello")
    with pytest.raises(ConversationNotFoundError):
        conv.get_attributes()


def test_chat_session_without_delete_keeps_it_across_sessions(echo, as_alice):
    profile = select_ai.Profile(profile_name="P")
    conv = Conversation(attributes=ConversationAttributes(title="kept"))
    conv.create()
    with profile.chat_session(conversation=conv) as session:
        session.chat("one")
    with profile.chat_session(conversation=conv) as session:
        session.chat("two")
    assert [p.prompt for p in conv.list_prompts()] == ["one", "two"]


@pytest.mark.anyio
async def test_async_conversation_and_chat_session(echo, async_as_alice):
    profile = await select_ai.AsyncProfile.fetch("P")
    conv = AsyncConversation(attributes=ConversationAttributes(title="async"))
    async with profile.chat_session(conversation=conv, delete=False) as session:
        assert await session.chat("first") == "re: first"
        assert await session.chat("second") == "re: second"
    assert [p.prompt async for p in conv.list_prompts()] == ["first", "second"]
    await conv.set_attributes(ConversationAttributes(title="renamed"))
    assert (await AsyncConversation.fetch(conv.conversation_id)).attributes.title == "renamed"
    assert conv.conversation_id in {c.conversation_id async for c in AsyncConversation.list()}
    async with profile.chat_session(conversation=conv, delete=True):
        pass
    with pytest.raises(ConversationNotFoundError):
        await conv.get_attributes()


def test_chat_session_streams_into_the_conversation(echo, as_alice):
    profile = select_ai.Profile(profile_name="P")
    conv = Conversation(attributes=ConversationAttributes(title="streamed"))
    with profile.chat_session(conversation=conv, delete=False) as session:
        assert "".join(session.chat("streamed question", stream=True)) == "re: streamed question"
        assert session.chat("next") == "re: next"
    history = [m["content"] for m in echo.requests[-1].json["messages"] if m["role"] != "system"]
    assert history == ["streamed question", "re: streamed question", "next"]
    assert [p.prompt for p in conv.list_prompts()] == ["streamed question", "next"]


def test_chat_session_needs_a_conversation(echo, as_alice):
    profile = select_ai.Profile(profile_name="P")
    with pytest.raises(AttributeError), profile.chat_session(conversation="fake-object"):
        pass
