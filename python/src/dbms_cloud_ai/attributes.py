"""AI profile attributes: Oracle's names, types and defaults, validated.

Values arrive as JSON (create_profile, set_attributes, generate's per-call
``attributes``) or as a string (set_attribute, where '1024', 'true' and
'[{"owner":"SH"}]' must all work).  Each is parsed into a typed JSON value
and stored that way; the text the user gave is kept beside it (given_texts),
and the attribute views show that text, as Oracle does.
"""

from __future__ import annotations

import json
import math

from . import jsontext, providers
from .errors import FeatureNotSupported, InvalidJson, InvalidParameter, NullValue

HINT = "See the attribute list with: SELECT * FROM dbms_cloud_ai.profile_attribute_names;"


def _bool(name, v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    raise InvalidParameter(f"attribute {name} must be true or false, not {_show(v)}", hint=HINT)


def _numeric(kind, lo, hi):
    """A parser for integers (kind int) or numbers (kind float) in [lo, hi];
    numeric strings are accepted, as Oracle's SDKs send them."""
    what = "an integer" if kind is int else "a number"

    def parse(name, v):
        given = v
        if isinstance(v, str):
            try:
                v = kind(v.strip())
            except ValueError:
                v = None
        if isinstance(v, float) and kind is int and v.is_integer():
            v = int(v)
        ok = isinstance(v, int) if kind is int else isinstance(v, (int, float)) and math.isfinite(v)
        if isinstance(v, bool) or not ok:
            raise InvalidParameter(f"attribute {name} must be {what}, not {_show(given)}", hint=HINT)
        if not lo <= v <= hi:
            raise InvalidParameter(
                f"attribute {name} is out of range: {v} (allowed {lo} to {hi})", hint=HINT)
        return v
    return parse


def _int(lo, hi):
    return _numeric(int, lo, hi)


def _number(lo, hi):
    return _numeric(float, lo, hi)


def _string(name, v):
    if isinstance(v, (dict, list, bool)) or v is None:
        raise InvalidParameter(f"attribute {name} must be a string, not {_show(v)}", hint=HINT)
    s = str(v)
    if not s.strip():
        raise InvalidParameter(f"attribute {name} must not be empty", hint=HINT)
    return s


def _upper_choice(*allowed):
    """Oracle's upper-case keywords (oci_apiformat), in any case."""
    def parse(name, v):
        s = _string(name, v).strip().upper()
        if s not in allowed:
            raise InvalidParameter(
                f"attribute {name} must be one of {', '.join(allowed)}, not {_show(v)}", hint=HINT)
        return s
    return parse


def _choice(*allowed):
    def parse(name, v):
        s = _string(name, v).strip().lower()
        if s not in allowed:
            raise InvalidParameter(
                f"attribute {name} must be one of {', '.join(allowed)}, not {_show(v)}", hint=HINT)
        return s
    return parse


def _json_value(name, v):
    """A JSON array or object may arrive as JSON text (set_attribute)."""
    if isinstance(v, str):
        try:
            return jsontext.loads(v)
        except ValueError:
            raise InvalidJson(f"attribute {name} is not valid JSON: {_show(v)}", hint=HINT) from None
    return v


def _object_list(name, v):
    v = _json_value(name, v)
    if not isinstance(v, list):
        raise InvalidParameter(f"attribute {name} must be a JSON array of objects", hint=HINT)
    out = []
    for i, item in enumerate(v):
        if not isinstance(item, dict):
            raise InvalidParameter(
                f"attribute {name}: element {i + 1} is not an object",
                detail='Each element looks like {"owner": "SH", "name": "CUSTOMERS"}; '
                "name may be omitted for the whole schema.", hint=HINT)
        unknown = set(item) - {"owner", "name"}
        if unknown:
            raise InvalidParameter(
                f"attribute {name}: element {i + 1} has unknown key {sorted(unknown)[0]!r}",
                hint=HINT)
        owner = item.get("owner")
        if not isinstance(owner, str) or not owner.strip():
            raise InvalidParameter(
                f"attribute {name}: element {i + 1} needs an \"owner\" string", hint=HINT)
        entry = {"owner": owner}
        if item.get("name") is not None:
            if not isinstance(item["name"], str) or not item["name"].strip():
                raise InvalidParameter(
                    f"attribute {name}: element {i + 1} has an empty \"name\"", hint=HINT)
            entry["name"] = item["name"]
        out.append(entry)
    return out


def _stop_tokens(name, v):
    v = _json_value(name, v)
    if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v):
        raise InvalidParameter(
            f"attribute {name} must be a JSON array of non-empty strings, e.g. [\";\"]", hint=HINT)
    if len(v) > 4:
        raise InvalidParameter(f"attribute {name} allows at most 4 stop sequences", hint=HINT)
    return v


def _provider(name, v):
    s = _string(name, v).strip().lower()
    if s in providers.UNSUPPORTED:
        raise FeatureNotSupported(
            f"provider {s} is not supported by dbms_cloud_ai",
            detail=providers.UNSUPPORTED[s],
            hint="Use one of: " + ", ".join(sorted(providers.PROVIDERS))
            + ", or provider_endpoint for an OpenAI-compatible server.")
    if s not in providers.PROVIDERS:
        raise InvalidParameter(
            f"attribute provider must be one of {', '.join(sorted(providers.PROVIDERS))}, "
            f"not {_show(v)}", hint=HINT)
    return s


# name -> (parser, default shown in profile_attribute_names, description)
SPEC = {
    "provider": (_provider, None, "AI provider: " + ", ".join(sorted(providers.PROVIDERS))),
    "credential_name": (_string, None, "dbms_cloud credential holding the API key"),
    "model": (_string, "provider default", "model name"),
    "embedding_model": (_string, None, "embedding model name"),
    "temperature": (_number(0, 2), "provider default", "sampling temperature, 0 to 2"),
    "max_tokens": (_int(1, 1_000_000), 1024, "maximum tokens to generate"),
    "context_window": (_int(1024, 100_000_000), "by model",
                       "the model's context window in tokens (sizes summarize and translate "
                       "chunks)"),
    "stop_tokens": (_stop_tokens, None, "JSON array of stop sequences"),
    "seed": (_int(-(2**63), 2**63 - 1), None, "sampling seed"),
    "provider_endpoint": (_string, "provider default host",
                          "host or URL of the provider or of an OpenAI-compatible server"),
    "azure_resource_name": (_string, None, "Azure OpenAI resource name"),
    "azure_deployment_name": (_string, None, "Azure OpenAI deployment name"),
    "azure_embedding_deployment_name": (_string, None, "Azure OpenAI embedding deployment"),
    "object_list": (_object_list, "current schema", 'JSON array of {"owner":..,"name":..}'),
    "object_list_mode": (_choice("all", "automated"), "all", "all or automated"),
    "enforce_object_list": (_bool, True, "refuse SQL touching objects outside object_list"),
    "comments": (_bool, False, "include table and column comments"),
    "constraints": (_bool, False, "include primary and foreign keys"),
    "annotations": (_bool, False, "include annotations (dbms_cloud_ai.add_annotation)"),
    "case_sensitive_values": (_bool, False, "compare literals case-sensitively"),
    "raise_on_invalid_sql": (_bool, False, "NL2SQL: raise LL005 (or 42704 for no readable "
                             "table) instead of returning Oracle's \"Sorry, unfortunately a valid "
                             "SELECT statement could not be generated ...\" text"),
    "repair_rounds": (_int(0, 5), 2, "NL2SQL: how many times the model is asked to correct a "
                      "query PostgreSQL refused, after the deterministic repairs"),
    "value_hints": (_bool, True, "NL2SQL: show the values of text columns with few distinct "
                    "values in the schema context (never while data access is disabled)"),
    "sql_samples": (_int(1, 8), 1, "NL2SQL: more than 1 asks for that many queries (the rest "
                    "sampled at temperature 0.7), runs each, and keeps the result most of them "
                    "agree on"),
    "conversation": (_bool, False, "session short-term conversation"),
    "conversation_length": (_int(1, 999), 10, "prompts sent as context"),
    "summarize_history": (_bool, False, "named conversations: send the prompts that fell out "
                          "of the window as a running summary written by the model"),
    "summary_max_tokens": (_int(50, 4000), 500, "size of that summary (max_tokens of the "
                           "summary call)"),
    "long_term_memory": (_bool, False, "chat: remember durable facts an identified end user "
                         "states and recall them in later conversations (the organization's "
                         "switch must be on too; dbms_cloud_ai.enable_memory)"),
    "memory_model": (_string, "the profile's model", "model that extracts memories (a cheaper, "
                     "classifier-tier model of the same provider)"),
    "additional_instructions": (_string, None, "extra instructions for the model"),
    "role": (_string, None, "system role text for the model"),
    "region": (_string, None, "provider region (oci: shown, not used; calls are routed)"),
    "oci_compartment_id": (_string, None, "oci: the OCI compartment (shown, not used)"),
    "oci_endpoint_id": (_string, None, "oci: the dedicated AI cluster endpoint (shown, not used)"),
    "oci_apiformat": (_upper_choice("COHERE", "GENERIC"), None, "oci: COHERE or GENERIC "
                      "(shown; the routed endpoint speaks OpenAI's format)"),
    "oci_runtimetype": (_upper_choice("COHERE", "LLAMA"), None, "oci: COHERE or LLAMA "
                        "(Oracle's deprecated runtime type; shown, not used)"),
    "vector_index_name": (_string, None, "vector index for RAG"),
    "enable_sources": (_bool, False, "cite sources (RAG)"),
    "enable_source_offsets": (_bool, False, "cite source offsets (RAG)"),
    "enable_custom_source_uri": (_bool, False, "custom source URIs (RAG)"),
    "streaming": (_bool, False, "streaming responses"),
    "source_language": (_string, None, "translate: source language"),
    "target_language": (_string, None, "translate: target language"),
}

# Attributes that only exist for Oracle Cloud providers not supported here.
ORACLE_ONLY = {"aws_apiformat"}


def parse_json_object(text: str | None, what: str) -> dict:
    """Parse the JSON text of an attributes or params argument into a dict."""
    if text is None:
        return {}
    if isinstance(text, dict):
        return text
    try:
        value = jsontext.loads(text)
    except ValueError as e:
        raise InvalidJson(f"{what} is not valid JSON", detail=str(e),
                          hint=f'Pass {what} as a JSON object, for example \'{{"provider": "openai"}}\'.'
                          ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidParameter(f"{what} must be a JSON object", hint=HINT)
    return value


def _key(name: str) -> str:
    return name.strip().lower()


def given_texts(text) -> dict:
    """Each member of a JSON object's text as the user wrote it, by attribute
    name (folded as parse_value folds it): a string's characters, any other
    value's JSON text with its spacing and case.  The views show these
    (Oracle shows what was supplied).  The last of duplicate keys wins, as in
    json.loads; {} for anything but an object's text (a parsed dict, or text
    parse_json_object has refused already)."""
    if not isinstance(text, str):
        return {}
    ws, decoder, out = json.decoder.WHITESPACE, json.JSONDecoder(), {}
    try:
        i = ws.match(text, 0).end()
        if text[i:i + 1] != "{":
            return {}
        i = ws.match(text, i + 1).end()
        while text[i:i + 1] == '"':
            key, i = json.decoder.scanstring(text, i + 1)
            i = ws.match(text, i).end() + 1                   # past the colon
            i = ws.match(text, i).end()
            value, end = decoder.raw_decode(text, i)
            out[_key(key)] = value if isinstance(value, str) else text[i:end]
            i = ws.match(text, end).end()
            if text[i:i + 1] != ",":
                break
            i = ws.match(text, i + 1).end()
    except (ValueError, RecursionError):
        return {}
    return out


def given_text(value) -> str | None:
    """set_attribute's value as the user wrote it."""
    return None if value is None else str(value)


def parse_value(name: str, value):
    """Validate one attribute; return its typed value (None removes it)."""
    key = _key(name) if isinstance(name, str) else name
    if key is None:
        raise NullValue("attribute_name must not be NULL", hint=HINT)
    if key in ORACLE_ONLY:
        raise FeatureNotSupported(f"attribute {key} applies only to Oracle Cloud providers",
                                  hint=HINT)
    if key not in SPEC:
        raise InvalidParameter(f"unknown profile attribute {name!r}", hint=HINT)
    if value is None:
        return key, None
    return key, SPEC[key][0](key, value)


def parse_all(attrs: dict) -> dict:
    """Validate every key of an attributes object (no cross-checks)."""
    out = {}
    for name, value in attrs.items():
        key, typed = parse_value(name, value)
        out[key] = typed
    return out


def merge(base: dict, changes: dict) -> dict:
    """Apply validated changes; a None value removes the attribute."""
    merged = dict(base)
    for k, v in changes.items():
        if v is None:
            merged.pop(k, None)
        else:
            merged[k] = v
    return merged


def check_profile(attrs: dict) -> None:
    """Cross-attribute rules that make a profile usable."""
    if "provider" not in attrs and "provider_endpoint" not in attrs:
        raise InvalidParameter(
            "either provider or provider_endpoint must be specified",
            hint='Add "provider": "openai" (or another provider), or "provider_endpoint" '
                 "for an OpenAI-compatible server.")
    if attrs.get("provider_endpoint"):
        providers.endpoint_url(attrs["provider_endpoint"])
    provider = providers.for_attributes(attrs)
    provider.check(attrs)
    if provider.needs_key and not attrs.get("credential_name") and not attrs.get("provider_endpoint"):
        raise InvalidParameter(
            f"attribute credential_name is required for provider {provider.name}",
            hint="Store the API key with dbms_cloud.create_credential() and name it in "
                 "credential_name.")


def display(value) -> str:
    """Oracle's string form of a stored attribute value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def _show(v) -> str:
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 60 else s[:57] + "..."
