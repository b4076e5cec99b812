from __future__ import annotations

from gate.config.endpoints import parse_endpoint
from gate.config.grader_access import GraderAccess
from gate.generate.providers.access import authorise
from gate.generate.providers.openai import OpenAIProvider, OpenAISettings
from gate.generate.providers.retry import RetryPolicy
from gate.generate.providers.types import Message, Parameters, Request

KEY = "sk-generation-key-0123456789"
GITHUB_TOKEN = "ghs_" + "A" * 36


def access(base_url: str, **keys: str) -> GraderAccess:
    return GraderAccess(endpoints=(parse_endpoint(base_url),), keys=keys or {"OPENAI_API_KEY": KEY},
                        protected=frozenset({GITHUB_TOKEN}))


def provider(fake, *, retries: int = 3, timeout: float = 5.0, sleeps: list | None = None, concurrency: int = 4):
    creds = authorise(fake.base_url, access(fake.base_url))
    settings = OpenAISettings(timeout=timeout, concurrency=concurrency, retry=RetryPolicy(max_retries=retries))
    record = sleeps if sleeps is not None else []
    return OpenAIProvider(creds, settings, sleep=record.append, rng=lambda: 1.0)


def ask(text: str, sample: int = 0, **parameters) -> Request:
    return Request("gpt-test", (Message("user", text),), parameters=Parameters(**parameters), sample=sample)
