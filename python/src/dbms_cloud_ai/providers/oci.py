"""OCI Generative AI, reached through an OpenAI-compatible endpoint.

OCI's own API needs OCI request signing, which this extension does not do.
A profile with ``"provider": "oci"`` is accepted with all of Oracle's
``oci_*`` attributes, and its calls go to an OpenAI-compatible server: the
profile's provider_endpoint, else the administrator's ``oci_genai_endpoint``
(model/oci_route.py); with neither, the call is refused (0A000) when it is
made, never when the profile is created.  Oracle's default models are sent
as the model names.
"""

from __future__ import annotations

from ..errors import FeatureNotSupported
from .openai import OpenAI, OpenAICompatible


class OCI(OpenAI):
    name = "oci"
    default_base = ""               # no host of its own: routed (model/oci_route.py)
    default_model = "meta.llama-3.3-70b-instruct"
    default_embedding_model = "cohere.embed-english-v3.0"
    # Oracle requires a credential for OCI (an API signing key or the resource
    # principal); the routed endpoint may need none.
    needs_key = False
    api_hosts = ()
    context_windows = OpenAICompatible.context_windows

    def base_url(self, attrs):
        if not attrs.get("provider_endpoint"):
            raise FeatureNotSupported(
                "provider oci has no OpenAI-compatible endpoint to call",
                detail="OCI Generative AI's own API needs OCI request signing, which "
                       "dbms_cloud_ai does not do.",
                hint="An administrator sets one with dbms_cloud_ai.set_oci_genai_endpoint(url), "
                     "or set the profile's provider_endpoint.")
        return super().base_url(attrs)
