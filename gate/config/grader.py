"""An LLM grader's settings (gate.yml's `judge:` of a suite that grades): the endpoint, model, key variable,
criteria, prompt, concurrency, retries, budget and cache. It is the core's, not a kind's, because where an API key
may be sent is decided by the workflow (`grader_access`, `endpoints`) for every suite that grades."""

from __future__ import annotations

from pydantic import Field, PositiveFloat, PositiveInt, field_validator

from gate.config.base import StrictModel
from gate.config.endpoints import DEFAULT_KEY_ENV, endpoint_url, key_variable
from gate.config.strict import invalid

JUDGE_CRITERIA = ("relevance", "accuracy", "completeness", "coherence")


class GraderConfig(StrictModel):
    """LLM-as-judge through any OpenAI-compatible endpoint (off unless `enabled`)."""

    enabled: bool = False
    base_url: str = Field("https://api.openai.com/v1", description="OpenAI-compatible API root (…/v1); the workflow's "
                          "judge_endpoints (LLM_GATE_JUDGE_ENDPOINTS) must allow it. http only to loopback.")
    model: str = "gpt-4o-mini"
    api_key_env: str = Field(DEFAULT_KEY_ENV, description="The environment variable holding the API key: the "
                             "workflow's choice (action input judge_api_key_env, LLM_GATE_JUDGE_API_KEY_ENV; "
                             "default OPENAI_API_KEY), never gate.yml's. Optional; set here, it must equal that "
                             "choice, else a config error.")
    criteria: list[str] = Field(default_factory=lambda: list(JUDGE_CRITERIA), min_length=1)
    prompt_template: str | None = Field(
        None, description="Overrides the seed's judge prompt; {criterion} {query} {context} {answer} {expected}.")
    max_concurrency: PositiveInt = 4
    max_retries: int = Field(3, ge=0, le=10)
    timeout: PositiveFloat = Field(60.0, description="Seconds per request.")
    budget_tokens: PositiveInt | None = Field(None, description="Stop spending after this many tokens.")
    budget_usd: PositiveFloat | None = Field(None, description="Stop spending after this many dollars.")
    price_per_1k_tokens: float = Field(0.002, ge=0, description="For the budget and the report's cost line.")
    cache: bool = Field(True, description="Reuse answers from <runtime.cache_dir>/judge for identical prompts.")

    @field_validator("base_url")
    @classmethod
    def _endpoint(cls, base_url: str) -> str:
        return endpoint_url(base_url)  # normalised: the allow-list is checked against the URL requested

    @field_validator("api_key_env")
    @classmethod
    def _key_name(cls, name: str) -> str:
        return key_variable(name)  # a pull request's gate.yml must not pick the GitHub token

    @field_validator("criteria")
    @classmethod
    def _names(cls, criteria: list[str]) -> list[str]:
        for name in criteria:
            if not name.replace("_", "").isalnum():
                raise invalid("a criterion name of letters, digits and '_' (it names a metric: judge_<name>)",
                              found=repr(name), fix="e.g. `relevance` or `tone_match`")
        return criteria
