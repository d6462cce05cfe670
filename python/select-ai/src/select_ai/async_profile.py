"""AsyncProfile: an AI profile used with await (the plans of BaseProfile, run by arun).

``await AsyncProfile(...)`` loads, creates, replaces or merges the profile, as
constructing a Profile does.
"""

import builtins
from collections.abc import AsyncIterator, Mapping

import pandas

from select_ai._run import arun
from select_ai.action import Action
from select_ai.base_profile import BaseProfile, ProfileAttributes
from select_ai.feedback import FeedbackOperation, FeedbackType
from select_ai.provider import Provider
from select_ai.summary import SummaryParams
from select_ai.synthetic_data import SyntheticDataAttributes

__all__ = ["AsyncProfile"]


async def _aiter_chunks(chunks):
    for chunk in chunks:
        yield chunk


class AsyncProfile(BaseProfile):
    """An AI profile whose methods are coroutines."""

    def __await__(self):
        return arun(self._plan_init()).__await__()

    # --- the profile itself ------------------------------------------------------

    @classmethod
    async def fetch(cls, profile_name: str, owner: str | None = None) -> "AsyncProfile":
        return await cls(profile_name, owner=owner, raise_error_if_exists=False)

    @classmethod
    async def list(cls, profile_name_pattern: str = ".*",
                   owner: str | None = None) -> AsyncIterator["AsyncProfile"]:
        for name, _description, row_owner in await arun(
                cls._plan_list(profile_name_pattern, owner)):
            yield await cls(profile_name=name, owner=row_owner, raise_error_if_exists=False,
                            raise_error_on_empty_attributes=False)

    async def create(self, replace: bool | None = False) -> None:
        await arun(self._plan_create(replace=replace))

    async def delete(self, force: bool = False) -> None:
        await arun(self._plan_delete(self.profile_name, force))

    @classmethod
    async def delete_profile(cls, profile_name: str, force: bool = False) -> None:
        await arun(cls._plan_delete(profile_name, force))

    async def enable(self) -> None:
        await arun(self._plan_status(enabled=True))

    async def disable(self) -> None:
        await arun(self._plan_status(enabled=False))

    async def grant_access(self, user_or_role_name: str) -> None:
        await arun(self._plan_access(user_or_role_name, grant=True))

    async def revoke_access(self, user_or_role_name: str) -> None:
        await arun(self._plan_access(user_or_role_name, grant=False))

    async def get_attributes(self) -> ProfileAttributes | None:
        # The SDK's async twin reports a profile without attributes as an error.
        return await arun(self._plan_attributes(self.profile_name, self.owner,
                                                raise_on_empty=True))

    async def set_attribute(self, attribute_name: str,
                            attribute_value: bool | str | int | float | Provider) -> None:
        await arun(self._plan_set_attribute(attribute_name, attribute_value))

    async def set_attributes(self, attributes: ProfileAttributes) -> None:
        await arun(self._plan_set_attributes(attributes))

    # --- asking the model ----------------------------------------------------------

    async def generate(self, prompt: str, action: Action | None = Action.SHOWSQL,
                       params: Mapping | None = None, stream: bool = False, chunk_size: int = 8192, *,
                       attributes: Mapping | None = None
                       ) -> pandas.DataFrame | str | AsyncIterator[str] | None:
        """The answer for an action (the async default action is showsql, as in the SDK)."""
        if stream:
            self._check_stream(action, chunk_size)
            text = await arun(self._plan_generate(prompt, action, params, attributes))
            return _aiter_chunks(self._chunks(text, chunk_size))
        return await arun(self._plan_generate(prompt, action, params, attributes))

    async def _action(self, action, prompt, params, stream, chunk_size, attributes):
        return await self.generate(prompt, action=action, params=params, stream=stream,
                                   chunk_size=chunk_size, attributes=attributes)

    async def chat(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                   chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return await self._action(Action.CHAT, prompt, params, stream, chunk_size, attributes)

    async def narrate(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                      chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return await self._action(Action.NARRATE, prompt, params, stream, chunk_size, attributes)

    async def explain_sql(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                          chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return await self._action(Action.EXPLAINSQL, prompt, params, stream, chunk_size,
                                  attributes)

    async def show_sql(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                       chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return await self._action(Action.SHOWSQL, prompt, params, stream, chunk_size, attributes)

    async def show_prompt(self, prompt: str, params: Mapping | None = None, stream: bool = False,
                          chunk_size: int = 8192, *, attributes: Mapping | None = None):
        return await self._action(Action.SHOWPROMPT, prompt, params, stream, chunk_size,
                                  attributes)

    async def run_sql(self, prompt: str, params: Mapping | None = None, *,
                      attributes: Mapping | None = None) -> pandas.DataFrame:
        return await self.generate(prompt, action=Action.RUNSQL, params=params,
                                   attributes=attributes)

    def chat_session(self, conversation, delete: bool = False):
        """An async context manager whose session keeps the conversation across calls."""
        from select_ai import conversation as conversations
        return conversations.async_chat_session(self, conversation, delete)

    async def summarize(self, content: str | None = None, prompt: str | None = None, location_uri: str | None = None,
                        credential_name: str | None = None,
                        params: SummaryParams = None) -> str | None:
        return await arun(self._plan_summarize(content=content, prompt=prompt,
                                               location_uri=location_uri,
                                               credential_name=credential_name, params=params))

    async def translate(self, text: str, source_language: str | None = None,
                        target_language: str | None = None) -> str | None:
        return await arun(self._plan_translate(text, source_language, target_language))

    async def generate_synthetic_data(
            self, synthetic_data_attributes: SyntheticDataAttributes) -> None:
        return await arun(self._plan_synthetic_data(synthetic_data_attributes))

    async def run_pipeline(self, prompt_specifications: builtins.list[tuple[str, Action]],
                           continue_on_error: bool = False, *,
                           attributes: Mapping | None = None) -> builtins.list[object]:
        """Each (prompt, action) in turn; with continue_on_error a failure is kept as
        its error in the list instead of raised.  Results are text (runsql: its JSON)."""
        results = []
        for prompt, action in prompt_specifications:
            try:
                results.append(await arun(self._plan_generate_text(
                    prompt, action, attributes=attributes)))
            except Exception as error:  # noqa: BLE001 - the caller asked for errors as values
                if not continue_on_error:
                    raise
                results.append(error)
        return results

    # --- feedback ------------------------------------------------------------------

    async def add_positive_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                                    sql_id: str | None = None) -> None:
        await arun(self._plan_feedback(FeedbackType.POSITIVE, prompt_spec=prompt_spec,
                                       sql_id=sql_id))

    async def add_negative_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                                    sql_id: str | None = None,
                                    response: str | None = None,
                                    feedback_content: str | None = None) -> None:
        await arun(self._plan_feedback(FeedbackType.NEGATIVE, prompt_spec=prompt_spec,
                                       sql_id=sql_id, response=response,
                                       feedback_content=feedback_content))

    async def delete_feedback(self, prompt_spec: tuple[str, Action] | None = None,
                              sql_id: str | None = None) -> None:
        await arun(self._plan_feedback(prompt_spec=prompt_spec, sql_id=sql_id,
                                       operation=FeedbackOperation.DELETE))
