"""Conversations: named, persistent chat histories that generate() continues.

Conversation / AsyncConversation manage them through dbms_cloud_ai's conversation
functions and views; chat_session / async_chat_session bind one to a profile's calls
(Profile.chat_session and AsyncProfile.chat_session delegate here).  Sync and async
share every statement through the plans below (select_ai._run).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

from . import sql
from ._abc import SelectAIDataClass
from ._run import Sql, arun, run
from .errors import ConversationNotFoundError

__all__ = [
    "AsyncConversation",
    "AsyncSession",
    "Conversation",
    "ConversationAttributes",
    "ConversationPrompt",
    "Session",
    "async_chat_session",
    "chat_session",
]


@dataclass
class ConversationAttributes(SelectAIDataClass):
    """What create_conversation / update_conversation take.

    retention_days is a timedelta (whole days are sent; 0 keeps the conversation
    until it is deleted); conversation_length is how many earlier prompt/response
    pairs are sent to the model as context.
    """

    title: str | None = "New Conversation"
    description: str | None = None
    retention_days: datetime.timedelta | None = datetime.timedelta(days=7)
    conversation_length: int | None = 10

    def json(self, exclude_null=True):
        # The extension counts retention in whole days.
        out = {}
        for key, value in self.dict(exclude_null=exclude_null).items():
            out[key] = value.days if isinstance(value, datetime.timedelta) else value
        return json.dumps(out)


@dataclass
class ConversationPrompt:
    """One stored prompt of a conversation and the model's response."""

    conversation_prompt_id: str
    conversation_id: str
    conversation_title: str
    profile_name: str | None
    prompt_action: str | None
    prompt: str | None
    prompt_response: str | None
    created: datetime.datetime | None
    modified: datetime.datetime | None
    client_identifier: str | None
    client_ip: str | None
    sid: int | None
    serial: int | None


def _attributes_of(row: Mapping[str, Any]) -> ConversationAttributes:
    """A view row as attributes; the view keeps retention in days."""
    days = row["retention_days"]
    return ConversationAttributes(
        title=row["conversation_title"],
        description=row["description"],
        retention_days=None if days is None else datetime.timedelta(days=days),
        conversation_length=row["conversation_length"],
    )


# --- plans: shared by the sync and async classes ---------------------------------

def _plan_create(attributes_json: str):
    return (yield Sql(sql.CREATE_CONVERSATION, {"attributes": attributes_json},
                      fetch="value", topic="conversation"))


def _plan_update(conversation_id, attributes_json: str):
    yield Sql(sql.UPDATE_CONVERSATION,
              {"conversation_id": conversation_id, "attributes": attributes_json},
              topic="conversation")
    return (yield from _plan_get_attributes(conversation_id))


def _plan_drop(conversation_id, force: bool):
    yield Sql(sql.DROP_CONVERSATION, {"conversation_id": conversation_id, "force": force},
              topic="conversation")


def _plan_delete_prompt(conversation_prompt_id, force: bool):
    yield Sql(sql.DELETE_CONVERSATION_PROMPT,
              {"conversation_prompt_id": conversation_prompt_id, "force": force},
              topic="conversation")


def _plan_add_tag(conversation_id, tag_key, tag_value):
    yield Sql(sql.ADD_CONVERSATION_TAG,
              {"conversation_id": conversation_id, "tag_key": tag_key, "tag_value": tag_value},
              topic="conversation")


def _plan_remove_tag(conversation_id, tag_key, force: bool):
    yield Sql(sql.REMOVE_CONVERSATION_TAG,
              {"conversation_id": conversation_id, "tag_key": tag_key, "force": force},
              topic="conversation")


def _plan_get_attributes(conversation_id):
    rows = yield Sql(sql.GET_USER_CONVERSATION_ATTRIBUTES, {"conversation_id": conversation_id},
                     fetch="rows_dicts", topic="conversation")
    if not rows:
        raise ConversationNotFoundError(conversation_id=conversation_id)
    return _attributes_of(rows[0])


def _plan_list():
    return (yield Sql(sql.LIST_USER_CONVERSATIONS, fetch="rows_dicts", topic="conversation"))


def _plan_list_prompts(conversation_id):
    rows = yield Sql(sql.LIST_USER_CONVERSATION_PROMPTS, {"conversation_id": conversation_id},
                     fetch="rows_dicts", topic="conversation")
    return [ConversationPrompt(**row) for row in rows]


class _BaseConversation:

    def __init__(self, conversation_id: str | None = None,
                 attributes: ConversationAttributes | None = None):
        self.conversation_id = conversation_id
        self.attributes = attributes

    def __repr__(self):
        return (f"{type(self).__name__}(conversation_id={self.conversation_id}, "
                f"attributes={self.attributes})")


class Conversation(_BaseConversation):
    """A conversation: create it, then pass it to Profile.chat_session()."""

    def create(self) -> str:
        """Create the conversation from self.attributes; returns (and keeps) its id."""
        attributes_json = self.attributes.json()  # None attributes: AttributeError, as the SDK
        self.conversation_id = run(_plan_create(attributes_json))
        return self.conversation_id

    def delete(self, force: bool = False) -> None:
        """Drop the conversation and its prompts; force ignores a missing one."""
        run(_plan_drop(self.conversation_id, force))

    def delete_prompt(self, conversation_prompt_id: str, force: bool = False) -> None:
        """Delete one stored prompt; force ignores a missing one."""
        run(_plan_delete_prompt(conversation_prompt_id, force))

    def add_tag(self, tag_key: str, tag_value: str) -> None:
        """Set a tag on the conversation (replacing that key's value)."""
        run(_plan_add_tag(self.conversation_id, tag_key, tag_value))

    def remove_tag(self, tag_key: str, force: bool = False) -> None:
        """Remove a tag; force ignores a missing one."""
        run(_plan_remove_tag(self.conversation_id, tag_key, force))

    def list_prompts(self) -> Iterator[ConversationPrompt]:
        """The stored prompts, oldest first."""
        yield from run(_plan_list_prompts(self.conversation_id))

    @classmethod
    def fetch(cls, conversation_id: str) -> Conversation:
        """The conversation with this id, with its attributes read from the database."""
        conversation = cls(conversation_id=conversation_id)
        conversation.attributes = conversation.get_attributes()
        return conversation

    def set_attributes(self, attributes: ConversationAttributes) -> None:
        """Change the attributes given; self.attributes then holds the stored ones."""
        attributes_json = attributes.json()
        self.attributes = run(_plan_update(self.conversation_id, attributes_json))

    def get_attributes(self) -> ConversationAttributes:
        """The stored attributes; ConversationNotFoundError if there is no such conversation."""
        return run(_plan_get_attributes(self.conversation_id))

    @classmethod
    def list(cls) -> Iterator[Conversation]:
        """Every conversation of the current user, oldest first."""
        for row in run(_plan_list()):
            yield cls(conversation_id=row["conversation_id"], attributes=_attributes_of(row))


class AsyncConversation(_BaseConversation):
    """A conversation for asyncio code: create it, then pass it to AsyncProfile.chat_session()."""

    async def create(self) -> str:
        """Create the conversation from self.attributes; returns (and keeps) its id."""
        attributes_json = self.attributes.json()
        self.conversation_id = await arun(_plan_create(attributes_json))
        return self.conversation_id

    async def delete(self, force: bool = False) -> None:
        """Drop the conversation and its prompts; force ignores a missing one."""
        await arun(_plan_drop(self.conversation_id, force))

    async def delete_prompt(self, conversation_prompt_id: str, force: bool = False) -> None:
        """Delete one stored prompt; force ignores a missing one."""
        await arun(_plan_delete_prompt(conversation_prompt_id, force))

    async def add_tag(self, tag_key: str, tag_value: str) -> None:
        """Set a tag on the conversation (replacing that key's value)."""
        await arun(_plan_add_tag(self.conversation_id, tag_key, tag_value))

    async def remove_tag(self, tag_key: str, force: bool = False) -> None:
        """Remove a tag; force ignores a missing one."""
        await arun(_plan_remove_tag(self.conversation_id, tag_key, force))

    async def list_prompts(self) -> AsyncGenerator[ConversationPrompt, None]:
        """The stored prompts, oldest first."""
        for prompt in await arun(_plan_list_prompts(self.conversation_id)):
            yield prompt

    @classmethod
    async def fetch(cls, conversation_id: str) -> AsyncConversation:
        """The conversation with this id, with its attributes read from the database."""
        conversation = cls(conversation_id=conversation_id)
        conversation.attributes = await conversation.get_attributes()
        return conversation

    async def set_attributes(self, attributes: ConversationAttributes) -> None:
        """Change the attributes given; self.attributes then holds the stored ones."""
        attributes_json = attributes.json()
        self.attributes = await arun(_plan_update(self.conversation_id, attributes_json))

    async def get_attributes(self) -> ConversationAttributes:
        """The stored attributes; ConversationNotFoundError if there is no such conversation."""
        return await arun(_plan_get_attributes(self.conversation_id))

    @classmethod
    async def list(cls) -> AsyncGenerator[AsyncConversation, None]:
        """Every conversation of the current user, oldest first."""
        for row in await arun(_plan_list()):
            yield cls(conversation_id=row["conversation_id"], attributes=_attributes_of(row))


# --- chat sessions ------------------------------------------------------------------

class Session:
    """A profile's calls bound to one conversation: each passes its id in params,
    so the extension reads and extends that conversation's history."""

    def __init__(self, profile, params: Mapping):
        self.profile = profile
        self.params = params

    def chat(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
             attributes: Mapping | None = None):
        return self.profile.chat(prompt, params=self.params, stream=stream,
                                 chunk_size=chunk_size, attributes=attributes)

    def narrate(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                attributes: Mapping | None = None):
        return self.profile.narrate(prompt, params=self.params, stream=stream,
                                    chunk_size=chunk_size, attributes=attributes)

    def explain_sql(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                    attributes: Mapping | None = None):
        return self.profile.explain_sql(prompt, params=self.params, stream=stream,
                                        chunk_size=chunk_size, attributes=attributes)

    def show_sql(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                 attributes: Mapping | None = None):
        return self.profile.show_sql(prompt, params=self.params, stream=stream,
                                     chunk_size=chunk_size, attributes=attributes)

    def show_prompt(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                    attributes: Mapping | None = None):
        return self.profile.show_prompt(prompt, params=self.params, stream=stream,
                                        chunk_size=chunk_size, attributes=attributes)

    def run_sql(self, prompt: str, *, attributes: Mapping | None = None):
        return self.profile.run_sql(prompt, params=self.params, attributes=attributes)


class AsyncSession:
    """Session for an AsyncProfile: the same calls, awaited."""

    def __init__(self, async_profile, params: Mapping):
        self.async_profile = async_profile
        self.params = params

    async def chat(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                   attributes: Mapping | None = None):
        return await self.async_profile.chat(prompt, params=self.params, stream=stream,
                                             chunk_size=chunk_size, attributes=attributes)

    async def narrate(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                      attributes: Mapping | None = None):
        return await self.async_profile.narrate(prompt, params=self.params, stream=stream,
                                                chunk_size=chunk_size, attributes=attributes)

    async def explain_sql(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                          attributes: Mapping | None = None):
        return await self.async_profile.explain_sql(prompt, params=self.params, stream=stream,
                                                    chunk_size=chunk_size, attributes=attributes)

    async def show_sql(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                       attributes: Mapping | None = None):
        return await self.async_profile.show_sql(prompt, params=self.params, stream=stream,
                                                 chunk_size=chunk_size, attributes=attributes)

    async def show_prompt(self, prompt: str, stream: bool = False, chunk_size: int = 8192, *,
                          attributes: Mapping | None = None):
        return await self.async_profile.show_prompt(prompt, params=self.params, stream=stream,
                                                    chunk_size=chunk_size, attributes=attributes)

    async def run_sql(self, prompt: str, *, attributes: Mapping | None = None):
        return await self.async_profile.run_sql(prompt, params=self.params, attributes=attributes)


@contextmanager
def chat_session(profile, conversation: Conversation, delete: bool = False):
    """Yield a Session of profile bound to conversation (created first if it has
    attributes but no id yet); with delete, drop the conversation at the end."""
    try:
        if conversation.conversation_id is None and conversation.attributes is not None:
            conversation.create()
        yield Session(profile, {"conversation_id": conversation.conversation_id})
    finally:
        if delete and conversation.conversation_id is not None:
            conversation.delete()


@asynccontextmanager
async def async_chat_session(async_profile, conversation: AsyncConversation, delete: bool = False):
    """chat_session for an AsyncProfile and an AsyncConversation."""
    try:
        if conversation.conversation_id is None and conversation.attributes is not None:
            await conversation.create()
        yield AsyncSession(async_profile, {"conversation_id": conversation.conversation_id})
    finally:
        if delete and conversation.conversation_id is not None:
            await conversation.delete()
