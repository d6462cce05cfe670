"""Where an ``oci`` profile's model calls go (providers/oci.py).

The profile's provider_endpoint, else the administrator's setting
``oci_genai_endpoint`` (dbms_cloud_ai.set_oci_genai_endpoint; the table
dbms_cloud_ai._admin_endpoint), an OpenAI-compatible base URL.  With neither
the call is refused when it is made (0A000): the profile itself stays valid,
as in Oracle, where an OCI profile needs no network ACL.  The routed host is
checked against the host ACL like any other provider's.
"""

from __future__ import annotations

from .. import acl, db, providers
from ..errors import FeatureNotSupported

SETTING = "oci_genai_endpoint"
_HINT = ("An administrator sets an OpenAI-compatible base URL with "
         "dbms_cloud_ai.set_oci_genai_endpoint('https://host/v1') (the setting oci_genai_endpoint) "
         "and allows its host with dbms_cloud_ai.append_host_ace(); or set the profile's "
         "provider_endpoint with dbms_cloud_ai.set_attribute().")


def routed(plpy, attrs: dict, profile_name: str | None) -> dict:
    """``attrs`` with the endpoint an oci profile's call goes to; others as they are."""
    if attrs.get("provider") != "oci" or attrs.get("provider_endpoint"):
        return attrs
    row = db.one(plpy, "select url from dbms_cloud_ai._admin_endpoint where setting = $1",
                 ("text",), (SETTING,))
    if row is None:
        raise FeatureNotSupported(
            f"profile {profile_name or '(per-call attributes)'} uses provider oci, and no "
            "OpenAI-compatible endpoint is configured for it",
            detail="OCI Generative AI's own API needs OCI request signing, which dbms_cloud_ai "
                   "does not do; its calls go to an OpenAI-compatible server instead.",
            hint=_HINT)
    return {**attrs, "provider_endpoint": row["url"]}


def set_endpoint(plpy, url) -> None:
    """Admin: the OpenAI-compatible base URL of oci profiles without
    provider_endpoint; NULL removes it (their calls are then refused)."""
    acl.require_admin(plpy, "set_oci_genai_endpoint")
    if url is None:
        db.query(plpy, "delete from dbms_cloud_ai._admin_endpoint where setting = $1",
                 ("text",), (SETTING,))
        return
    db.query(plpy, """
        insert into dbms_cloud_ai._admin_endpoint (setting, url) values ($1, $2)
        on conflict (setting) do update set url = excluded.url, modified = pg_catalog.now()""",
             ("text", "text"), (SETTING, providers.endpoint_url(url)))
