"""AI profiles: their attributes, and the plans Profile and AsyncProfile share.

Every database conversation of a profile is a plan (a generator of ``Sql``, see
``_run``); ``Profile`` runs it with ``run`` and ``AsyncProfile`` with ``arun``,
so the two classes differ only in being awaited.
"""

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass

import oracledb
import pandas

from select_ai import sql
from select_ai._abc import SelectAIDataClass
from select_ai._run import Sql
from select_ai.action import Action
from select_ai.errors import (
    InvalidSQLError,
    ProfileAttributesEmptyError,
    ProfileExistsError,
    ProfileNotFoundError,
)
from select_ai.feedback import FeedbackOperation, FeedbackType
from select_ai.provider import Provider
from select_ai.summary import SummaryParams
from select_ai.synthetic_data import SyntheticDataAttributes

__all__ = ["BaseProfile", "ProfileAttributes"]

# Oracle's answer of runsql when the query returned no row.
NO_DATA = "No data found for the prompt."

# The statement_timeout a runsql or narrate call gets when the session has none.
GENERATED_QUERY_TIMEOUT = "300s"

# Oracle's code for "profile already exists" (create_profile of an existing name).
ORA_PROFILE_EXISTS = 20046


@dataclass
class ProfileAttributes(SelectAIDataClass):
    """A profile's attributes; the provider ones live in ``provider``."""

    additional_instructions: str | None = None
    annotations: bool | None = None
    case_sensitive_values: bool | None = None
    comments: bool | None = None
    constraints: bool | None = None
    conversation: bool | None = None
    credential_name: str | None = None
    enable_custom_source_uri: bool | None = None
    enable_sources: bool | None = None
    enable_source_offsets: bool | None = None
    enforce_object_list: bool | None = None
    max_tokens: int | None = 1024
    object_list: list[Mapping] | None = None
    object_list_mode: str | None = None
    provider: Provider | None = None
    seed: int | None = None
    source_language: str | None = None
    stop_tokens: str | None = None
    streaming: str | None = None
    temperature: float | None = None
    target_language: str | None = None
    vector_index_name: str | None = None

    def __post_init__(self):
        provider = self.provider
        if provider is not None and not isinstance(provider, Provider):
            raise ValueError("'provider' must be an object of type select_ai.Provider")
        super().__post_init__()

    def json(self, exclude_null: bool = True) -> str:
        """The attributes JSON of create_profile: provider fields flattened."""
        out = {}
        for key, value in self.dict(exclude_null=exclude_null).items():
            if isinstance(value, Provider):
                for pkey, pvalue in value.profile_dict(exclude_null=exclude_null).items():
                    out[Provider.key_alias(pkey)] = pvalue
            else:
                out[key] = value
        return json.dumps(out)

    @classmethod
    def create(cls, **attributes) -> "ProfileAttributes":
        """From the profile's attributes as the database lists them (name, text)."""
        provider_values = {}
        values = {}
        names = {f.name for f in dataclasses.fields(cls)}
        for key, value in attributes.items():
            if isinstance(value, oracledb.LOB):
                value = value.read()
            if key in Provider.keys():
                provider_values[Provider.key_alias(key)] = value
            elif key in names:
                values[key] = value
            # Attributes this class has no field for (the extension's own, such as
            # repair_rounds) are not part of the SDK's object.
        values["provider"] = Provider.create(**provider_values)
        return cls(**values)

    @classmethod
    async def async_create(cls, **attributes) -> "ProfileAttributes":
        return cls.create(**attributes)

    def set_attribute(self, key, value) -> None:
        """Set one attribute; a provider attribute goes to the provider object."""
        if key in Provider.keys() and not isinstance(value, Provider):
            if self.provider is None:
                self.provider = Provider()
            setattr(self.provider, Provider.key_alias(key), value)
        else:
            setattr(self, key, value)


def _set_attribute_sql(value):
    """The set_attribute overload for a Python value, and the value to bind."""
    if isinstance(value, bool):
        return sql.SET_ATTRIBUTE_BOOLEAN, value
    if isinstance(value, (int, float)):
        return sql.SET_ATTRIBUTE_NUMERIC, value
    if isinstance(value, (list, dict)):
        return sql.SET_ATTRIBUTE_TEXT, json.dumps(value)
    if value is None:
        return sql.SET_ATTRIBUTE_TEXT, None
    return sql.SET_ATTRIBUTE_TEXT, str(value)


def _error_code(error: oracledb.DatabaseError) -> int | None:
    return getattr(error.args[0], "code", None) if error.args else None


def no_data_for_prompt(result) -> bool:
    return result is None or result == NO_DATA


def convert_json_rows_to_df(result) -> pandas.DataFrame:
    """runsql's JSON rows as a DataFrame; any other text is Oracle's 'no valid SQL'."""
    if no_data_for_prompt(result):
        return pandas.DataFrame()
    try:
        rows = json.loads(result)
    except json.JSONDecodeError:
        raise InvalidSQLError(result) from None
    return pandas.DataFrame(rows)


def oracle_prompt_text(result):
    """showprompt's messages in Oracle's shape: each content a list of TEXT parts, in
    Oracle's JSON layout ("key" : value).  The extension gives each content as a string;
    an element that is not such a message (the note on tables left out) is kept as it is."""
    try:
        messages = json.loads(result)
    except (TypeError, json.JSONDecodeError):
        return result
    if not isinstance(messages, list):
        return result
    shaped = [
        {**m, "content": [{"type": "TEXT", "text": m["content"]}]}
        if isinstance(m, dict) and isinstance(m.get("content"), str) else m
        for m in messages
    ]
    return json.dumps(shaped, indent=2, separators=(",", " : "), ensure_ascii=False)


def validate_params_for_feedback(
    feedback_type: FeedbackType | None,
    feedback_content: str | None,
    prompt_spec: tuple[str, Action] | None = None,
    sql_id: str | None = None,
    response: str | None = None,
    operation: FeedbackOperation = FeedbackOperation.ADD,
) -> dict:
    """The arguments of dbms_cloud_ai.feedback, after the SDK's own checks."""
    if not sql_id and not prompt_spec:
        raise AttributeError("Either sql_id or prompt_spec must be specified")
    params = {
        "operation": FeedbackOperation(operation).value,
        "feedback_type": FeedbackType(feedback_type).value if feedback_type else None,
        "feedback_content": feedback_content or None,
        "response": response or None,
        "sql_id": sql_id or None,
        "sql_text": None,
    }
    if prompt_spec:
        prompt, action = prompt_spec
        if action not in (Action.RUNSQL, Action.SHOWSQL, Action.EXPLAINSQL):
            raise AttributeError("'action' must be one of 'RUNSQL', 'SHOWSQL' or 'EXPLAINSQL'")
        if (params["operation"] == FeedbackOperation.ADD.value
                and params["feedback_type"] == FeedbackType.NEGATIVE.value and response is None):
            raise AttributeError("'response' must be specified if feedback_type is NEGATIVE")
        params["sql_text"] = f"select ai {Action(action).value} {prompt}"
    return params


def validate_params_for_summary(
    prompt: str | None = None,
    content: str | None = None,
    location_uri: str | None = None,
    credential_name: str | None = None,
    params: SummaryParams | None = None,
) -> dict:
    """The arguments of dbms_cloud_ai.summarize: exactly one of content and location_uri."""
    if bool(content) == bool(location_uri):
        raise AttributeError("Either content or location_uri must be specified")
    return {
        "content": content or None,
        "location_uri": location_uri or None,
        "credential_name": credential_name or None,
        "prompt": prompt or None,
        "parameters": params.json() if params else None,
    }


class BaseProfile:
    """What Profile and AsyncProfile share: the constructor's arguments and the plans.

    :param profile_name: the profile's name
    :param attributes: ProfileAttributes; with them, the profile is created
    :param description: the profile's description
    :param merge: merge the non-null attributes into the saved profile's
    :param replace: replace a saved profile of that name
    :param raise_error_if_exists: ProfileExistsError when the profile exists and
        attributes or a description were given without merge or replace
    :param raise_error_on_empty_attributes: ProfileAttributesEmptyError when the
        saved profile has no attributes
    :param owner: the owner of a profile shared with you
    """

    def __init__(
        self,
        profile_name: str | None = None,
        attributes: ProfileAttributes | None = None,
        description: str | None = None,
        merge: bool | None = False,
        replace: bool | None = False,
        raise_error_if_exists: bool | None = True,
        raise_error_on_empty_attributes: bool | None = False,
        owner: str | None = None,
    ):
        if attributes is not None and not isinstance(attributes, ProfileAttributes):
            raise TypeError("'attributes' must be an object of type select_ai.ProfileAttributes")
        self.profile_name = profile_name
        self.attributes = attributes
        self.description = description
        self.owner = owner.upper() if owner else None
        self.merge = merge
        self.replace = replace
        self.raise_error_if_exists = raise_error_if_exists
        self.raise_error_on_empty_attributes = raise_error_on_empty_attributes

    @property
    def qualified_name(self) -> str | None:
        if self.profile_name is None:
            return None
        if self.owner is None:
            return self.profile_name
        return f"{self.owner}.{self.profile_name}"

    def __repr__(self):
        return (f"{type(self).__name__}(profile_name={self.profile_name}, "
                f"attributes={self.attributes}, description={self.description})")

    # --- reading the saved profile ---------------------------------------------

    @staticmethod
    def _lookup(profile_name: str, owner: str | None) -> dict:
        return {"profile_name": profile_name.upper(), "owner": owner.upper() if owner else None}

    @classmethod
    def _plan_describe(cls, profile_name, owner=None):
        """(description, owner) of a saved profile; ProfileNotFoundError when none."""
        row = yield Sql(sql.GET_PROFILE, cls._lookup(profile_name, owner), fetch="one",
                        topic="profile")
        if row is None:
            raise ProfileNotFoundError(profile_name)
        return row[1], row[2]

    @classmethod
    def _plan_attributes(cls, profile_name, owner=None, raise_on_empty=False):
        rows = yield Sql(sql.GET_PROFILE_ATTRIBUTES, cls._lookup(profile_name, owner),
                         fetch="all", topic="profile")
        if rows:
            return ProfileAttributes.create(**dict(rows))
        if raise_on_empty:
            raise ProfileAttributesEmptyError(profile_name=profile_name)
        return None

    def _plan_init(self):
        """Load, create, replace or merge the profile, as the constructor's arguments ask."""
        if not self.profile_name:
            if self.attributes is not None or self.description is not None:
                raise ValueError("Attribute 'profile_name' cannot be empty or None")
            return self
        exists = False
        try:
            saved_description, self.owner = yield from self._plan_describe(
                self.profile_name, self.owner)
            exists = True
            saved_attributes = yield from self._plan_attributes(
                self.profile_name, self.owner, raise_on_empty=True)
        except ProfileAttributesEmptyError:
            if self.raise_error_on_empty_attributes:
                raise
        except ProfileNotFoundError:
            if self.attributes is None and self.description is None:
                raise
        else:
            self._raise_error_if_profile_exists()
            self._merge_attributes(saved_attributes, saved_description)
        if self.replace or not exists:
            yield from self._plan_create(replace=self.replace)
        return self

    def _raise_error_if_profile_exists(self):
        if (not self.replace and not self.merge and self.raise_error_if_exists
                and (self.attributes is not None or self.description is not None)):
            raise ProfileExistsError(self.profile_name)

    def _merge_attributes(self, saved_attributes, saved_description):
        """Fill what was not given from the saved profile; merge means replace with both."""
        if self.description is None and not self.replace:
            self.description = saved_description
        if self.attributes is None:
            self.attributes = saved_attributes
        if self.merge:
            self.replace = True
            if self.attributes is not None:
                self.attributes = dataclasses.replace(
                    saved_attributes, **self.attributes.dict(exclude_null=True))

    # --- writing ----------------------------------------------------------------

    def _plan_create(self, replace=False):
        if self.attributes is None:
            raise AttributeError("Profile attributes cannot be None")
        create = Sql(sql.CREATE_PROFILE, {"profile_name": self.profile_name,
                                          "attributes": self.attributes.json(),
                                          "description": self.description or None},
                     topic="profile")
        try:
            yield create
        except oracledb.DatabaseError as error:
            if not (replace and _error_code(error) == ORA_PROFILE_EXISTS):
                raise
            yield from self._plan_delete(self.profile_name, force=True)
            yield create

    @staticmethod
    def _plan_delete(profile_name, force=False):
        yield Sql(sql.DROP_PROFILE, {"profile_name": profile_name, "force": bool(force)},
                  topic="profile")

    def _plan_status(self, enabled: bool):
        yield Sql(sql.ENABLE_PROFILE if enabled else sql.DISABLE_PROFILE,
                  {"profile_name": self.profile_name}, topic="profile")

    def _plan_access(self, user_or_role_name, grant: bool):
        if not isinstance(user_or_role_name, str):
            raise TypeError("'user_or_role_name' must be a string")
        grantee = user_or_role_name.strip()
        if not grantee:
            raise ValueError("'user_or_role_name' cannot be empty")
        yield Sql(sql.GRANT_PROFILE_ACCESS if grant else sql.REVOKE_PROFILE_ACCESS,
                  {"profile_name": self.profile_name, "user_or_role_name": grantee},
                  topic="profile")

    def _plan_set_attribute(self, attribute_name, attribute_value):
        """Set one attribute, or each field of a Provider, in the object and the database."""
        self.attributes.set_attribute(attribute_name, attribute_value)
        if isinstance(attribute_value, Provider):
            pairs = [(Provider.key_alias(k), v)
                     for k, v in attribute_value.profile_dict().items()]
        else:
            pairs = [(attribute_name, attribute_value)]
        for name, value in pairs:
            text, bound = _set_attribute_sql(value)
            yield Sql(text, {"profile_name": self.profile_name, "attribute_name": name,
                             "attribute_value": bound}, topic="profile")

    def _plan_set_attributes(self, attributes):
        if not isinstance(attributes, ProfileAttributes):
            raise TypeError("'attributes' must be an object of type select_ai.ProfileAttributes")
        yield Sql(sql.SET_ATTRIBUTES, {"profile_name": self.profile_name,
                                       "attributes": attributes.json()}, topic="profile")
        self.attributes = yield from self._plan_attributes(self.profile_name, self.owner)

    @classmethod
    def _plan_list(cls, profile_name_pattern=".*", owner=None):
        rows = yield Sql(sql.LIST_PROFILES, {"pattern": profile_name_pattern,
                                             "owner": owner.upper() if owner else None},
                         fetch="all", topic="profile")
        return rows

    # --- asking the model -------------------------------------------------------

    def _generate_parameters(self, prompt, action, params=None, attributes=None) -> dict:
        if not prompt:
            raise ValueError("prompt cannot be empty or None")
        if attributes is not None and not isinstance(attributes, Mapping):
            raise TypeError("'attributes' must be a mapping")
        return {
            "prompt": prompt,
            "action": Action(action).value if action is not None else None,
            "profile_name": self.profile_name,
            "params": json.dumps(params) if params else None,
            "attributes": json.dumps(attributes) if attributes is not None else None,
        }

    def _plan_generate_text(self, prompt, action=Action.RUNSQL, params=None, attributes=None):
        """generate()'s text (runsql: its rows as JSON)."""
        parameters = self._generate_parameters(prompt, action, params, attributes)
        if parameters["action"] in (Action.RUNSQL.value, Action.NARRATE.value, None):
            yield Sql(sql.ENSURE_STATEMENT_TIMEOUT, {"timeout": GENERATED_QUERY_TIMEOUT},
                      topic="generate")
        return (yield Sql(sql.GENERATE, parameters, fetch="value", topic="generate"))

    def _plan_generate(self, prompt, action=Action.RUNSQL, params=None, attributes=None):
        """What the SDK's generate returns: runsql's rows as a DataFrame, else the text."""
        result = yield from self._plan_generate_text(prompt, action, params, attributes)
        if action is None or Action(action) == Action.RUNSQL:
            return convert_json_rows_to_df(result)
        if Action(action) == Action.SHOWPROMPT:
            return oracle_prompt_text(result)
        return result

    @staticmethod
    def _check_stream(action, chunk_size):
        if action == Action.RUNSQL:
            raise ValueError("stream=True is not supported for run_sql")
        if chunk_size <= 0:
            raise ValueError("chunk_size must be greater than 0")

    @staticmethod
    def _chunks(text, chunk_size):
        """The answer in pieces of chunk_size characters (the whole answer is read at once)."""
        if not text:
            return []
        return [text[i:i + chunk_size] for i in range(0, len(text), chunk_size)]

    def _plan_summarize(self, content=None, prompt=None, location_uri=None,
                        credential_name=None, params=None):
        parameters = validate_params_for_summary(prompt=prompt, content=content,
                                                 location_uri=location_uri,
                                                 credential_name=credential_name, params=params)
        parameters["profile_name"] = self.profile_name
        return (yield Sql(sql.SUMMARIZE, parameters, fetch="value", topic="summarize"))

    def _plan_translate(self, text, source_language=None, target_language=None):
        return (yield Sql(sql.TRANSLATE, {"profile_name": self.profile_name, "text": text,
                                          "source_language": source_language,
                                          "target_language": target_language},
                          fetch="value", topic="translate"))

    def _plan_feedback(self, feedback_type=None, prompt_spec=None, sql_id=None, response=None,
                       feedback_content=None, operation=FeedbackOperation.ADD):
        parameters = validate_params_for_feedback(
            feedback_type=feedback_type, feedback_content=feedback_content,
            prompt_spec=prompt_spec, sql_id=sql_id, response=response, operation=operation)
        parameters["profile_name"] = self.profile_name
        # Naming the statement twice is a call Oracle cannot even resolve (its own
        # code for that differs from the other feedback errors).
        both = parameters["sql_id"] is not None and parameters["sql_text"] is not None
        yield Sql(sql.FEEDBACK, parameters,
                  topic="feedback.ambiguous_statement" if both else "feedback")

    def _plan_synthetic_data(self, synthetic_data_attributes):
        if synthetic_data_attributes is None:
            raise ValueError("'synthetic_data_attributes' cannot be None")
        if not isinstance(synthetic_data_attributes, SyntheticDataAttributes):
            raise TypeError("'synthetic_data_attributes' must be an object of type "
                            "select_ai.SyntheticDataAttributes")
        arguments = synthetic_data_attributes.prepare()
        base = {"profile_name": self.profile_name, "params": arguments.get("params")}
        if arguments.get("object_list"):
            yield Sql(sql.GENERATE_SYNTHETIC_DATA_LIST,
                      {**base, "object_list": arguments["object_list"]},
                      topic="synthetic_data")
        else:
            yield Sql(sql.GENERATE_SYNTHETIC_DATA_TABLE,
                      {**base, "object_name": arguments.get("object_name"),
                       "owner_name": arguments.get("owner_name"),
                       "record_count": arguments.get("record_count"),
                       "user_prompt": arguments.get("user_prompt")},
                      topic="synthetic_data")
        return None
