"""The functions PL/Python bodies call: one per SQL function, nothing else.

Each is wrapped by ``sql_entry`` so our errors reach the client with their
SQLSTATE, detail and hint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import acl, attributes, credentials, data_access, db, profiles, sharing, writer
from . import generate as _generate
from .boundary import sql_entry
from .conversations import store as conversations
from .lazy import LazyModule
from .memory import identity
from .memory import recall as memory
from .model import accounting, budget, detached, oci_route, timing

if TYPE_CHECKING:   # the same modules, for tools that read imports (lazy.py)
    from .agents import catalog as _agents
    from .agents import definitions as _agent_definitions
    from .agents import history as _agent_history
    from .agents import outbound as _agent_outbound
    from .agents import run as _agent_run
    from .agents import sharing as _team_sharing
    from .agents import team as _agent_team
    from .memory import jobs as memory_jobs
    from .model import usage as _usage
    from .nl2sql import annotations as _annotations
    from .nl2sql import feedback as _feedback
    from .synthetic_data import params as _synthetic_params
    from .synthetic_data import run as _synthetic
    from .text import actions as _text_actions
    from .vector_indexes import indexes as _vector_indexes
    from .vector_indexes import schedule as _vector_schedule
else:
    _agent_run = LazyModule("agents.run")
    _agent_history = LazyModule("agents.history")
    _agent_outbound = LazyModule("agents.outbound")
    _agent_team = LazyModule("agents.team")
    _agents = LazyModule("agents.catalog")
    _agent_definitions = LazyModule("agents.definitions")
    _team_sharing = LazyModule("agents.sharing")
    _annotations = LazyModule("nl2sql.annotations")
    _feedback = LazyModule("nl2sql.feedback")
    memory_jobs = LazyModule("memory.jobs")
    _synthetic = LazyModule("synthetic_data.run")
    _synthetic_params = LazyModule("synthetic_data.params")
    _text_actions = LazyModule("text.actions")
    _usage = LazyModule("model.usage")
    _vector_indexes = LazyModule("vector_indexes.indexes")
    _vector_schedule = LazyModule("vector_indexes.schedule")

# --- dbms_cloud ---------------------------------------------------------------


@sql_entry
def create_credential(plpy, credential_name, username, password, user_ocid, tenancy_ocid,
                      private_key, fingerprint):
    credentials.create(plpy, credential_name, username, password, user_ocid, tenancy_ocid,
                       private_key, fingerprint)


@sql_entry
def drop_credential(plpy, credential_name):
    credentials.drop(plpy, credential_name)


@sql_entry
def update_credential(plpy, credential_name, attribute, value):
    credentials.update(plpy, credential_name, attribute, value)


@sql_entry
def enable_credential(plpy, credential_name):
    credentials.set_enabled(plpy, credential_name, True)


@sql_entry
def disable_credential(plpy, credential_name):
    credentials.set_enabled(plpy, credential_name, False)


# --- dbms_cloud_ai: profiles ----------------------------------------------------


@sql_entry
def create_profile(plpy, profile_name, attributes_json, status, description):
    profiles.create(plpy, profile_name, attributes_json, status, description)


@sql_entry
def drop_profile(plpy, profile_name, force):
    profiles.drop(plpy, profile_name, bool(force))


@sql_entry
def enable_profile(plpy, profile_name):
    profiles.set_status(plpy, profile_name, "ENABLED")


@sql_entry
def disable_profile(plpy, profile_name):
    profiles.set_status(plpy, profile_name, "DISABLED")


@sql_entry
def set_attribute(plpy, profile_name, attribute_name, attribute_value):
    profiles.set_attribute(plpy, profile_name, attribute_name, attribute_value)


@sql_entry
def set_attributes(plpy, profile_name, attributes_json):
    profiles.set_attributes(
        plpy, profile_name, attributes.parse_json_object(attributes_json, "attributes"),
        attributes.given_texts(attributes_json))


@sql_entry
def set_profile(plpy, profile_name):
    profiles.set_session(plpy, profile_name)


@sql_entry
def get_profile(plpy):
    return profiles.get_session(plpy)


@sql_entry
def clear_profile(plpy):
    profiles.clear_session(plpy)


@sql_entry
def grant_profile_access(plpy, profile_name, user_or_role_name):
    sharing.grant(plpy, profile_name, user_or_role_name)


@sql_entry
def revoke_profile_access(plpy, profile_name, user_or_role_name):
    sharing.revoke(plpy, profile_name, user_or_role_name)


@sql_entry
def set_profile_grant_budget(plpy, profile_name, user_or_role_name, daily_tokens):
    sharing.set_grant_budget(plpy, profile_name, user_or_role_name, daily_tokens)


@sql_entry
def profile_attribute_names(plpy):
    return [(name, attributes.display(default) if default is not None else None, text)
            for name, (_, default, text) in attributes.SPEC.items()]


# --- dbms_cloud_ai: network ACL ---------------------------------------------------


@sql_entry
def append_host_ace(plpy, host, principal_name, lower_port, upper_port, privilege="http"):
    acl.append_ace(plpy, host, principal_name, lower_port, upper_port, privilege)


@sql_entry
def remove_host_ace(plpy, host, principal_name, lower_port, upper_port, privilege="http"):
    acl.remove_ace(plpy, host, principal_name, lower_port, upper_port, privilege)


# --- dbms_cloud_ai: generate -----------------------------------------------------


@sql_entry
def generate(plpy, prompt, profile_name, action, attributes_json, params_json, search_path):
    return _generate.generate(plpy, prompt, profile_name, action, attributes_json, params_json,
                              search_path)


@sql_entry
def generate_detached(plpy, prompt, profile_name, action, attributes_json, params_json,
                      search_path):
    return (detached.run(plpy, _generate.generate, prompt, profile_name, action,
                         attributes_json, params_json, search_path),)


@sql_entry
def call_identity(plpy):
    return detached.identity(plpy)


@sql_entry
def require_call_identity(plpy, expected, procedure_name):
    detached.require_identity(plpy, expected, procedure_name)


@sql_entry
def select_ai(plpy, statement, search_path):
    return _generate.select_ai(plpy, statement, search_path)


# --- dbms_cloud_ai: conversations ------------------------------------------------


@sql_entry
def create_conversation(plpy, attributes_json, set_current=False):
    return conversations.create(plpy, attributes_json, set_current)


@sql_entry
def update_conversation(plpy, conversation_id, attributes_json):
    conversations.update(plpy, conversation_id, attributes_json)


@sql_entry
def drop_conversation(plpy, conversation_id, force):
    conversations.drop(plpy, conversation_id, bool(force))


@sql_entry
def delete_conversation_prompt(plpy, conversation_prompt_id, force):
    conversations.delete_prompt(plpy, conversation_prompt_id, bool(force))


@sql_entry
def set_conversation_id(plpy, conversation_id):
    conversations.set_session(plpy, conversation_id)


@sql_entry
def get_conversation_id(plpy):
    return conversations.get_session(plpy)


@sql_entry
def clear_conversation_id(plpy):
    conversations.clear_session(plpy)


@sql_entry
def add_conversation_tag(plpy, conversation_id, tag_key, tag_value):
    conversations.add_tag(plpy, conversation_id, tag_key, tag_value)


@sql_entry
def remove_conversation_tag(plpy, conversation_id, tag_key, force):
    conversations.remove_tag(plpy, conversation_id, tag_key, bool(force))


@sql_entry
def session_conversation_prompts(plpy):
    return conversations.session_prompts(plpy)


@sql_entry
def purge_conversations_batch(plpy, batch_size):
    return conversations.purge_batch(plpy, batch_size)


@sql_entry
def schedule_conversation_purge(plpy, schedule, batch_size):
    return conversations.schedule_purge(plpy, schedule, batch_size)


@sql_entry
def unschedule_conversation_purge(plpy):
    return conversations.unschedule_purge(plpy)


# --- dbms_cloud_ai: accounting and budgets --------------------------------------


@sql_entry
def pending_calls(plpy):
    return accounting.pending(plpy, db.current_user(plpy))


@sql_entry
def write(plpy, token, caller, bound, mine):
    writer.perform(plpy, token, caller, bound, mine)


@sql_entry
def set_token_budget(plpy, principal_name, daily_tokens):
    budget.set_budget(plpy, principal_name, daily_tokens)


@sql_entry
def set_max_wait(plpy, seconds):
    timing.set_max_wait(plpy, seconds)


@sql_entry
def set_oci_genai_endpoint(plpy, url):
    oci_route.set_endpoint(plpy, url)


@sql_entry
def set_slack_api_endpoint(plpy, url):
    _agent_outbound.set_slack_endpoint(plpy, url)


@sql_entry
def set_data_access(plpy, on):
    data_access.set_enabled(plpy, on)


# --- dbms_cloud_ai: feedback, ratings, examples ------------------------------------



@sql_entry
def feedback(plpy, profile_name, sql_id, sql_text, feedback_type, response, feedback_content,
             operation, search_path):
    _feedback.feedback(plpy, profile_name, sql_id, sql_text, feedback_type, response,
                       feedback_content, operation, search_path)


@sql_entry
def rate_prompt(plpy, conversation_prompt_id, rating, rating_comment):
    _feedback.rate_prompt(plpy, conversation_prompt_id, rating, rating_comment)


@sql_entry
def export_negative_feedback(plpy, profile_name, all_users):
    return _feedback.export_negative(plpy, profile_name, bool(all_users))


@sql_entry
def sql_id(plpy, sql_text):
    return None if sql_text is None else _feedback.sql_id_of(sql_text)


# --- dbms_cloud_ai: annotations ----------------------------------------------------


@sql_entry
def add_annotation(plpy, table_name, annotation_name, annotation_value, column_name):
    _annotations.add(plpy, table_name, annotation_name, annotation_value, column_name)


@sql_entry
def drop_annotation(plpy, table_name, annotation_name, column_name):
    _annotations.drop(plpy, table_name, annotation_name, column_name)


# --- dbms_cloud_ai: summarize and translate ---------------------------------------



@sql_entry
def summarize(plpy, content, location_uri, credential_name, profile_name, user_prompt, params,
              prompt, parameters):
    return _text_actions.summarize(plpy, content, location_uri, credential_name, profile_name,
                                   user_prompt, params, prompt, parameters)


@sql_entry
def translate(plpy, profile_name, text, source_language, target_language):
    return _text_actions.translate(plpy, profile_name, text, source_language, target_language)


# --- dbms_cloud_ai: synthetic data ------------------------------------------------


@sql_entry
def generate_synthetic_data(plpy, profile_name, object_name, owner_name, record_count,
                            user_prompt, params, search_path):
    targets = _synthetic_params.single(object_name, owner_name, record_count, user_prompt)
    return _synthetic.generate(plpy, profile_name, targets, _synthetic_params.options(params),
                               search_path)


@sql_entry
def generate_synthetic_data_list(plpy, profile_name, object_list, params):
    targets = _synthetic_params.object_list(object_list)
    return _synthetic.generate(plpy, profile_name, targets, _synthetic_params.options(params), [])


# --- dbms_cloud_ai: usage reports (prices) ----------------------------------------



@sql_entry
def set_model_price(plpy, provider, model, input_per_million, output_per_million, currency):
    _usage.set_price(plpy, provider, model, input_per_million, output_per_million, currency)


@sql_entry
def summarize_usage(plpy, recheck_days):
    return _usage.summarize(plpy, recheck_days)


@sql_entry
def schedule_usage_summary(plpy, schedule):
    return _usage.schedule_summary(plpy, schedule)


@sql_entry
def unschedule_usage_summary(plpy):
    return _usage.unschedule_summary(plpy)


# --- dbms_cloud_ai: long-term memory ------------------------------------------


@sql_entry
def set_end_user(plpy, subject, is_local):
    identity.set_end_user(plpy, subject, is_local)


@sql_entry
def memory_identity(plpy):
    return identity.row(plpy)


@sql_entry
def enable_memory(plpy, organization):
    identity.set_org(plpy, "enable_memory", organization, enabled=True)


@sql_entry
def disable_memory(plpy, organization):
    identity.set_org(plpy, "disable_memory", organization, enabled=False)


@sql_entry
def set_memory_attribute(plpy, attribute_name, attribute_value, organization):
    identity.set_attribute(plpy, attribute_name, attribute_value, organization)


@sql_entry
def set_memory_role(plpy, role_name, organization, identity_source):
    identity.set_role(plpy, role_name, organization, identity_source)


@sql_entry
def delete_memory(plpy, memory_id):
    memory.delete(plpy, memory_id)


@sql_entry
def erase_memories(plpy, subject, organization, memory_id):
    return memory.erase(plpy, subject, organization, memory_id)


@sql_entry
def claim_memory_jobs(plpy, batch_size, run_token):
    return memory_jobs.claim(plpy, batch_size, run_token)


@sql_entry
def run_memory_job(plpy, conversation_id, run_token):   # _run_memory_job (sql/api/080-memory.sql)
    return memory_jobs.run(plpy, conversation_id, run_token)


@sql_entry
def run_memory_job_detached(plpy, conversation_id, run_token, owner):
    memory_jobs.run_detached(plpy, conversation_id, run_token, owner)


@sql_entry
def fail_memory_job(plpy, conversation_id, run_token, sqlstate):
    memory_jobs.fail(plpy, conversation_id, run_token, sqlstate)


@sql_entry
def schedule_memory_jobs(plpy, schedule, batch_size):
    return memory_jobs.schedule(plpy, schedule, batch_size)


@sql_entry
def unschedule_memory_jobs(plpy):
    return memory_jobs.unschedule(plpy)


# --- dbms_cloud_ai: vector indexes (vector_indexes/) --------------------------------------------


@sql_entry
def create_vector_index(plpy, index_name, attributes_json, description, wait_for_completion):
    _vector_indexes.create(plpy, index_name, attributes_json, description, wait_for_completion)


@sql_entry
def update_vector_index(plpy, index_name, attribute_name, attribute_value):
    _vector_indexes.update_one(plpy, index_name, attribute_name, attribute_value)


@sql_entry
def update_vector_index_attributes(plpy, index_name, attributes_json):
    _vector_indexes.update_all(plpy, index_name, attributes_json)


@sql_entry
def drop_vector_index(plpy, index_name, include_data, force, schema_name):
    _vector_indexes.drop(plpy, index_name, include_data, force, schema_name)


@sql_entry
def enable_vector_index(plpy, index_name):
    _vector_indexes.set_status(plpy, index_name, True)


@sql_entry
def disable_vector_index(plpy, index_name):
    _vector_indexes.set_status(plpy, index_name, False)


@sql_entry
def grant_vector_index_access(plpy, index_name, user_or_role_name):
    _vector_indexes.grant(plpy, index_name, user_or_role_name)


@sql_entry
def revoke_vector_index_access(plpy, index_name, user_or_role_name):
    _vector_indexes.revoke(plpy, index_name, user_or_role_name)


@sql_entry
def refresh_vector_index(plpy, index_name):
    return _vector_schedule.refresh_now(plpy, index_name)


@sql_entry
def refresh_vector_index_job(plpy, index_name):
    return _vector_schedule.job(plpy, index_name)


@sql_entry
def maintain_vector_indexes(plpy, index_name):
    _vector_schedule.maintain(plpy, index_name)


# --- dbms_cloud_ai_agent: running teams and tools ---------------------------------


@sql_entry
def agent_run_team(plpy, team_name, user_prompt, params_json, search_path):
    return _agent_run.run_team(plpy, team_name, user_prompt, params_json, search_path)


@sql_entry
def agent_run_team_detached(plpy, team_name, user_prompt, params_json, search_path):
    return (_agent_run.run_team_detached(plpy, team_name, user_prompt, params_json, search_path),)


@sql_entry
def agent_run_tool(plpy, tool_name, input_text, search_path):
    return _agent_run.run_tool(plpy, tool_name, input_text, search_path)


@sql_entry
def agent_set_team(plpy, team_name):
    _agent_team.set_session(plpy, team_name)


@sql_entry
def agent_get_team(plpy):
    return _agent_team.get_session(plpy)


@sql_entry
def agent_clear_team(plpy):
    _agent_team.clear_session(plpy)


@sql_entry
def agent_unsaved(plpy, kind):
    return _agent_history.unsaved(plpy, db.current_user(plpy), kind)
# --- dbms_cloud_ai_agent: the catalog of tools, tasks, agents and teams ------------


@sql_entry
def create_agent_object(plpy, kind, name, attributes_json, status, description, search_path):
    _agents.create(plpy, kind, name, attributes_json, status, description, search_path)


@sql_entry
def drop_agent_object(plpy, kind, name, force):
    _agents.drop(plpy, kind, name, bool(force))


@sql_entry
def set_agent_object_status(plpy, kind, name, status):
    _agents.set_status(plpy, kind, name, status)


@sql_entry
def set_agent_attribute(plpy, object_name, object_type, attribute_name, attribute_value,
                        search_path):
    _agents.set_attribute(plpy, object_name, object_type, attribute_name, attribute_value,
                          search_path)


@sql_entry
def set_agent_attributes(plpy, object_name, object_type, attributes_json, search_path):
    _agents.set_attributes_json(plpy, object_name, object_type, attributes_json, search_path)


@sql_entry
def grant_team_access(plpy, team_name, user_or_role_name):
    _team_sharing.grant(plpy, team_name, user_or_role_name)


@sql_entry
def revoke_team_access(plpy, team_name, user_or_role_name):
    _team_sharing.revoke(plpy, team_name, user_or_role_name)


@sql_entry
def describe_tool(plpy, tool_name, search_path):
    return _agent_definitions.describe_tool(plpy, tool_name, search_path)


@sql_entry
def get_agent_definition(plpy, object_type, object_name):
    return _agent_definitions.get_definition(plpy, object_type, object_name)


@sql_entry
def describe_team(plpy, team_name):
    return _agent_definitions.describe_team(plpy, team_name)


@sql_entry
def list_team_tools(plpy, team_name):
    return _agent_definitions.list_tools(plpy, team_name)


@sql_entry
def export_team(plpy, team_name, params):
    return _agent_definitions.export_team(plpy, team_name, params)


@sql_entry
def import_team(plpy, profile_name, team_name, specification, force, params, search_path):
    _agent_definitions.import_team(plpy, profile_name, team_name, specification, force, params,
                                   search_path)
