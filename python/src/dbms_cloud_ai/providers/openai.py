"""OpenAI chat completions, and the servers that speak it: Azure OpenAI,
Hugging Face's router, and any OpenAI-compatible server (Ollama, vLLM, LM Studio)."""

from __future__ import annotations

import json
from urllib.parse import quote

from ..errors import InvalidParameter
from .base import (
    ChatRequest,
    Completion,
    Embedding,
    Provider,
    as_dict,
    as_text,
    float_vector,
    is_tool_turn,
    join_api_path,
    tool_arguments,
    tool_declaration,
    usage_or_estimate,
)


class OpenAI(Provider):
    name = "openai"
    default_base = "https://api.openai.com"
    api_hosts = ("api.openai.com",)
    # Context windows in tokens of the model families it makes, by model name
    # prefix (lower case, without an "org/" or "models/" prefix): any provider
    # serving such a model uses the figure (providers.context_window).
    context_windows = {
        "gpt-3.5-turbo": 16_385,
        "gpt-4": 8_192,
        "gpt-4-32k": 32_768,
        "gpt-4-turbo": 128_000,
        "gpt-4o": 128_000,
        "gpt-4.1": 1_047_576,
        "gpt-4.5": 128_000,
        "gpt-5": 400_000,
        "chatgpt-4o": 128_000,
        "o1": 200_000,
        "o1-mini": 128_000,
        "o3": 200_000,
        "o4-mini": 200_000,
    }
    default_model = "gpt-4o-mini"

    def url(self, attrs, req):
        return join_api_path(self.base_url(attrs), "/v1", "/chat/completions")

    def headers(self, api_key, attrs):
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def body(self, req: ChatRequest, attrs):
        messages = req.messages
        if any(is_tool_turn(m) for m in messages):
            messages = [openai_message(m) for m in messages]
        body = {"model": req.model, "messages": messages, "max_tokens": req.max_tokens}
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.stop:
            body["stop"] = req.stop
        if req.seed is not None:
            body["seed"] = req.seed
        if req.tools:
            body["tools"] = openai_tools(req.tools)
            # OpenAI's default with tools is "auto"; llama-cpp-python's server
            # takes a missing tool_choice as "none" and never calls a tool.
            body["tool_choice"] = "auto"
        return body

    def parse(self, data, req):
        try:
            choice = data["choices"][0]
            message = choice["message"]
            text = message.get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise self.bad("no choices[0].message.content") from None
        calls = parse_openai_tool_calls(message.get("tool_calls"))
        if calls:
            # llama-cpp-python's server writes the text "None" beside its tool calls
            text = text if isinstance(text, str) and text != "None" else ""
        elif "content" not in message:
            raise self.bad("no choices[0].message.content")
        elif not isinstance(text, str):
            raise self.bad("choices[0].message.content is not text")
        usage = as_dict(data.get("usage"))
        inp, out, est = usage_or_estimate(
            req, text, usage.get("prompt_tokens"), usage.get("completion_tokens"), calls)
        return Completion(text=text, model=as_text(data.get("model")) or req.model or "",
                          input_tokens=inp, output_tokens=out, tokens_estimated=est,
                          finish_reason=as_text(choice.get("finish_reason")), tool_calls=calls)

    # POST /v1/embeddings {"model", "input"} -> {"data": [{"embedding": [...]}], "usage"}
    def embedding_url(self, attrs, model):
        base = self.base_url(attrs)
        if base.endswith("/chat/completions"):  # an endpoint given as the chat URL itself
            base = base[: -len("/chat/completions")]
        return join_api_path(base, "/v1", "/embeddings")

    def embedding_body(self, text, model, attrs):
        return {"model": model, "input": [text], "encoding_format": "float"}

    def parse_embedding(self, data, model):
        try:
            vector = float_vector(data["data"][0]["embedding"])
        except (KeyError, IndexError, TypeError):
            raise self.bad_embedding("no data[0].embedding") from None
        if vector is None:
            raise self.bad_embedding("data[0].embedding is not an array of numbers")
        tokens = as_dict(data.get("usage")).get("prompt_tokens")
        if str(data.get("id") or "").startswith("infinity-"):
            tokens = None   # infinity's usage counts characters, not tokens: estimated instead
        return Embedding(vector, as_text(data.get("model")) or model,
                         tokens if isinstance(tokens, int) else None)


def openai_tools(tools: list[dict]) -> list[dict]:
    """Neutral tools as OpenAI (and Cohere v2) function tools."""
    out = []
    for t in tools:
        name, description, parameters = tool_declaration(t)
        out.append({"type": "function", "function": {
            "name": name, "description": description, "parameters": parameters}})
    return out


def openai_tool_call(call: dict) -> dict:
    """A neutral tool call as OpenAI (and Cohere v2) write it: arguments as JSON text."""
    return {"id": call["id"], "type": "function",
            "function": {"name": call["name"],
                         "arguments": json.dumps(call.get("arguments") or {})}}


def openai_message(m: dict) -> dict:
    if m.get("role") == "tool":
        return {"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]}
    if is_tool_turn(m):
        # Text, never null: llama-cpp-python's server answers HTTP 500 to an
        # assistant turn whose content is null; OpenAI accepts "" as well.
        return {"role": "assistant", "content": m.get("content") or "",
                "tool_calls": [openai_tool_call(c) for c in m["tool_calls"]]}
    return m


def parse_openai_tool_calls(raw) -> list[dict]:
    """``[{"id", "type": "function", "function": {"name", "arguments": <JSON text>}}]``
    (OpenAI and Cohere v2) as neutral tool calls."""
    calls = []
    for i, tc in enumerate(raw if isinstance(raw, list) else []):
        fn = as_dict(as_dict(tc).get("function"))
        if not fn:
            continue
        calls.append({"id": as_text(tc.get("id")) or f"call_{i}",
                      "name": as_text(fn.get("name")) or "",
                      "arguments": tool_arguments(fn.get("arguments"))})
    return calls


class OpenAICompatible(OpenAI):
    """provider_endpoint without provider: a server speaking OpenAI's wire format."""

    name = "openai-compatible"
    default_model = None
    needs_key = False
    api_hosts = ()
    # Open-weight models, which Ollama, vLLM, llama.cpp and Hugging Face serve.
    context_windows = {
        "llama-2": 4_096,
        "llama2": 4_096,
        "llama-3": 8_192,
        "llama3": 8_192,
        "meta-llama-3": 8_192,
        "llama-3.1": 128_000,
        "llama3.1": 128_000,
        "meta-llama-3.1": 128_000,
        "llama-3.2": 128_000,
        "llama3.2": 128_000,
        "llama-3.3": 128_000,
        "llama3.3": 128_000,
        "llama-4": 128_000,
        "llama4": 128_000,
        "mistral": 32_768,
        "mistral-large": 128_000,
        "mixtral": 32_768,
        "qwen2.5": 32_768,
        "qwen3": 32_768,
        "deepseek": 64_000,
        "gemma2": 8_192,
        "gemma-2": 8_192,
        "gemma3": 128_000,
        "gemma-3": 128_000,
    }

    # A server that only embeds (a vector index's profile) needs no chat model.
    def check(self, attrs):
        if not attrs.get("model") and not attrs.get("embedding_model"):
            raise InvalidParameter(
                "attribute model is required with provider_endpoint and no provider",
                hint='Add the model the server serves, for example "model": "llama3.2" '
                     '(or "embedding_model" for a profile that only embeds).')

    def check_chat(self, attrs):
        if not attrs.get("model"):
            raise InvalidParameter(
                "the profile names no model to chat with (attribute model; it has only "
                "embedding_model)",
                hint="Set the model the server serves with dbms_cloud_ai.set_attribute(profile_name, "
                     "'model', ...), or use another profile for this action.")


class HuggingFace(OpenAI):
    name = "huggingface"
    default_base = "https://router.huggingface.co/v1"
    api_hosts = ("router.huggingface.co", "api-inference.huggingface.co")
    context_windows = {}       # open-weight models: OpenAICompatible's figures
    default_model = "meta-llama/Llama-3.1-8B-Instruct"

    # The router speaks OpenAI's chat API only; its embeddings are another API.
    embedding_url = Provider.embedding_url


class Azure(OpenAI):
    name = "azure"
    model_from_deployment = True
    default_model = None
    api_hosts = ()
    api_host_suffixes = (".openai.azure.com",)
    context_windows = {}       # OpenAI's models: OpenAI's figures
    request_id_header = "x-ms-client-request-id"   # Azure REST APIs' client request id
    api_version = "2024-10-21"

    def check(self, attrs):
        if not attrs.get("azure_deployment_name"):
            raise InvalidParameter(
                "attribute azure_deployment_name is required for provider azure",
                hint='Add "azure_deployment_name": "<your deployment>".')
        if not attrs.get("azure_resource_name") and not attrs.get("provider_endpoint"):
            raise InvalidParameter(
                "attribute azure_resource_name is required for provider azure",
                hint='Add "azure_resource_name": "<resource>" (the <resource>.openai.azure.com host).')

    def base_url(self, attrs):
        if attrs.get("provider_endpoint"):
            return super().base_url(attrs)
        return f"https://{attrs['azure_resource_name']}.openai.azure.com"

    def url(self, attrs, req):
        deployment = quote(attrs["azure_deployment_name"], safe="")  # one path segment
        return (f"{self.base_url(attrs)}/openai/deployments/{deployment}"
                f"/chat/completions?api-version={self.api_version}")

    def headers(self, api_key, attrs):
        return {"api-key": api_key} if api_key else {}

    def body(self, req, attrs):
        body = super().body(req, attrs)
        if not attrs.get("model"):
            body.pop("model")  # the deployment decides the model
        return body

    # The embedding deployment: azure_embedding_deployment_name, else a
    # deployment named like embedding_model.  It decides the model.
    def embedding_url(self, attrs, model):
        deployment = quote(attrs.get("azure_embedding_deployment_name") or model, safe="")
        return (f"{self.base_url(attrs)}/openai/deployments/{deployment}"
                f"/embeddings?api-version={self.api_version}")

    def embedding_body(self, text, model, attrs):
        return {"input": [text], "encoding_format": "float"}
