"""The functions PL/Python bodies call: one per SQL function, nothing else.

Each is wrapped by ``sql_entry`` so our errors reach the client with their
SQLSTATE, detail and hint.
"""

from __future__ import annotations

from . import acl, attributes, credentials, generate as _generate, profiles
from .boundary import sql_entry

# --- dbms_cloud ---------------------------------------------------------------


@sql_entry
def create_credential(plpy, credential_name, username, password):
    credentials.create(plpy, credential_name, username, password)


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
        plpy, profile_name, attributes.parse_json_object(attributes_json, "attributes"))


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
def profile_attribute_names(plpy):
    return [(name, attributes.display(default) if default is not None else None, text)
            for name, (_, default, text) in attributes.SPEC.items()]


# --- dbms_cloud_ai: network ACL ---------------------------------------------------


@sql_entry
def append_host_ace(plpy, host, principal_name, lower_port, upper_port):
    acl.append_ace(plpy, host, principal_name, lower_port, upper_port)


@sql_entry
def remove_host_ace(plpy, host, principal_name, lower_port, upper_port):
    acl.remove_ace(plpy, host, principal_name, lower_port, upper_port)


# --- dbms_cloud_ai: generate -----------------------------------------------------


@sql_entry
def generate(plpy, prompt, profile_name, action, attributes_json, params_json):
    return _generate.generate(plpy, prompt, profile_name, action, attributes_json, params_json)
