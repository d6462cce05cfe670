"""AI providers: the provider part of a profile's attributes.

A provider object holds the provider attributes (provider, model, region,
embedding_model, provider_endpoint and the provider's own ones).  Each concrete
class knows its provider's public host (``provider_endpoint``), which the
network-access helpers use; a profile leaves that host out so that the database
uses its own default for the provider.  Only the base ``Provider``, used for an
OpenAI-compatible endpoint of your own, sends ``provider_endpoint``.
"""

import dataclasses
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass

__all__ = [
    "ANTHROPIC", "AWS", "AZURE", "COHERE", "GOOGLE", "HUGGINGFACE", "OCI", "OPENAI",
    "AWSProvider", "AnthropicProvider", "AzureProvider", "CohereProvider", "GoogleProvider",
    "HuggingFaceProvider", "OCIGenAIProvider", "OpenAIProvider", "Provider",
]

OPENAI = "openai"
COHERE = "cohere"
AZURE = "azure"
OCI = "oci"
GOOGLE = "google"
ANTHROPIC = "anthropic"
HUGGINGFACE = "huggingface"
AWS = "aws"

# Profile attribute names that belong to the provider object ("provider" is the
# profile's name for the provider_name field).
_PROVIDER_KEYS = frozenset({
    "provider", "provider_name", "embedding_model", "model", "region", "provider_endpoint",
    "azure_deployment_name", "azure_embedding_deployment_name", "azure_resource_name",
    "oci_apiformat", "oci_compartment_id", "oci_endpoint_id", "oci_runtimetype",
    "aws_apiformat",
})


@dataclass
class Provider(SelectAIDataClass):
    """A provider; with only provider_endpoint, an OpenAI-compatible server."""

    embedding_model: str | None = None
    model: str | None = None
    provider_name: str | None = None
    provider_endpoint: str | None = None
    region: str | None = None

    @classmethod
    def _all_subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from sub._all_subclasses()

    @classmethod
    def create(cls, *, provider_name: str | None = None, **kwargs) -> "Provider":
        """The provider class for provider_name, built from profile attributes."""
        target = cls
        if provider_name is not None:
            for sub in cls._all_subclasses():
                if sub.provider_name == str(provider_name).lower():
                    target = sub
                    break
        names = {f.name for f in dataclasses.fields(target)}
        values = {k: v for k, v in kwargs.items() if k in names}
        if target is cls and provider_name is not None:
            values["provider_name"] = provider_name
        return target(**values)

    @classmethod
    def key_alias(cls, key: str) -> str:
        """A profile attribute's field name, and back (provider <-> provider_name)."""
        return {"provider": "provider_name", "provider_name": "provider"}.get(key, key)

    @classmethod
    def keys(cls):
        return set(_PROVIDER_KEYS)

    def should_include_provider_endpoint(self) -> bool:
        """Whether a profile made with this provider names its endpoint."""
        return True

    def profile_dict(self, exclude_null: bool = True) -> dict:
        """The provider's fields as a profile holds them (field names, not aliases)."""
        values = self.dict(exclude_null=exclude_null)
        if not self.should_include_provider_endpoint():
            values.pop("provider_endpoint", None)
        return values


@dataclass
class _NativeProvider(Provider):
    """A provider with a public endpoint the database already knows."""

    def should_include_provider_endpoint(self) -> bool:
        return False


@dataclass
class AzureProvider(_NativeProvider):
    """Azure OpenAI: the resource and the deployments of the models."""

    provider_name: str = AZURE
    azure_deployment_name: str | None = None
    azure_embedding_deployment_name: str | None = None
    azure_resource_name: str | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.provider_endpoint is None:
            self.provider_endpoint = f"{self.azure_resource_name}.openai.azure.com"


@dataclass
class OpenAIProvider(_NativeProvider):
    provider_name: str = OPENAI
    provider_endpoint: str | None = "api.openai.com"


@dataclass
class OCIGenAIProvider(_NativeProvider):
    """OCI Generative AI: compartment, dedicated endpoint, API format and runtime."""

    provider_name: str = OCI
    oci_apiformat: str | None = None
    oci_compartment_id: str | None = None
    oci_endpoint_id: str | None = None
    oci_runtimetype: str | None = None


@dataclass
class CohereProvider(_NativeProvider):
    provider_name: str = COHERE
    provider_endpoint: str | None = "api.cohere.ai"


@dataclass
class GoogleProvider(_NativeProvider):
    provider_name: str = GOOGLE
    provider_endpoint: str | None = "generativelanguage.googleapis.com"


@dataclass
class HuggingFaceProvider(_NativeProvider):
    provider_name: str = HUGGINGFACE
    provider_endpoint: str | None = "api-inference.huggingface.co"


@dataclass
class AWSProvider(_NativeProvider):
    """AWS Bedrock: the endpoint follows the region."""

    provider_name: str = AWS
    aws_apiformat: str | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.provider_endpoint is None:
            self.provider_endpoint = f"bedrock-runtime.{self.region}.amazonaws.com"


@dataclass
class AnthropicProvider(_NativeProvider):
    provider_name: str = ANTHROPIC
    provider_endpoint: str | None = "api.anthropic.com"
