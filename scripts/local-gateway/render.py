#!/usr/bin/env python3
"""Render config.yaml.in (stdlib only): render.py TEMPLATE > config.yaml.

Environment: GW_MODEL_ID, GW_MODEL_URL (the chat server's base URL), and GW_EMBED_URL with
GW_EMBED_MODEL (an embedding route when GW_EMBED_URL is not empty).  A base URL gets /v1
unless it already ends in a version segment, as the extension's provider_endpoint does.
"""
import json
import os
import re
import string
import sys


def api_base(url: str) -> str:
    url = url.rstrip("/")
    return url if re.search(r"/v\d+$", url) else url + "/v1"


def render(template: str, env) -> str:
    # json.dumps: a YAML flow scalar that cannot break the document, whatever the value.
    q = lambda v: json.dumps(v)[1:-1]  # noqa: E731 - inside the template's quotes
    route = ""
    if env.get("GW_EMBED_URL"):
        route = ("  # Embeddings under their own id: one base URL serves chat and embeddings.\n"
                 f"  - model_name: \"{q(env['GW_EMBED_MODEL'])}\"\n"
                 f"    litellm_params: {{model: \"openai/{q(env['GW_EMBED_MODEL'])}\", "
                 f"api_base: \"{q(api_base(env['GW_EMBED_URL']))}\", api_key: none}}\n"
                 "    model_info: {mode: embedding}")
    return string.Template(template).substitute(
        model_id=q(env["GW_MODEL_ID"]), model_api_base=q(api_base(env["GW_MODEL_URL"])),
        embedding_route=route)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(render(f.read(), os.environ))
