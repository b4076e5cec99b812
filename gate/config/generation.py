"""gate.yml's generation settings: the providers a gate may ask (`providers:`) and, per suite, what to ask them
(`generate:`). A suite without `generate:` reads outputs produced elsewhere, as before.

A provider is one of three types: `openai` (any OpenAI-compatible chat-completions server: hosted APIs, vLLM, TGI,
Ollama, llama.cpp's server, LiteLLM), `command` (the user's own program speaking JSON Lines on stdin/stdout) and
`local` (a Hugging Face causal LM through the gate's runtime). Where a key may go is the workflow's decision, never
gate.yml's: an `openai` provider's `base_url` must lie under the workflow's `judge_endpoints`, and `api_key_env`
may only repeat the workflow's `judge_api_key_env` (`gate.generate.providers.access`). A `command` provider runs
only where the workflow lets the pull request's code run anyway (never in the trusted publishing job).

`generate:` names the provider, the models to ask, the kind's dataset (the seed's own inputs: exercise files for
drift, questions for stability, probes for stereotype, queries for RAG, prompts for heuristic), an optional prompt
template, the samples per prompt (k, the records' `sample` field), the sampling parameters, a hard budget and the
prices. The kind's recipe (`Kind.generation`) turns them into calls and the answers into its own record shape.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, PositiveInt, field_validator, model_validator

from gate.config.endpoints import endpoint_url, key_variable
from gate.config.strict import Globs, StrictModel, invalid

PROVIDER_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"  # it names cassette files


class OpenAIProviderConfig(StrictModel):
    """An OpenAI-compatible chat-completions server."""

    type: Literal["openai"]
    base_url: str = Field(description="API root (…/v1); the workflow's judge_endpoints (LLM_GATE_JUDGE_ENDPOINTS) "
                          "must allow it. Plain http only to loopback.")
    api_key_env: str | None = Field(None, description="Only to repeat the workflow's choice (action input "
                                    "judge_api_key_env; default OPENAI_API_KEY): gate.yml never picks the secret.")
    keyless: bool = Field(False, description="Send no API key (a local vLLM, Ollama or llama.cpp server).")
    concurrency: PositiveInt = Field(4, le=64, description="Calls in flight at once.")
    timeout: PositiveFloat = Field(60.0, le=600, description="Seconds: connecting, and between bytes of the reply.")
    max_retries: int = Field(4, ge=0, le=10, description="Retries of a 429, 5xx, timeout or broken reply, with "
                             "bounded, jittered backoff (429's Retry-After is honoured up to the bound).")

    @field_validator("base_url")
    @classmethod
    def _endpoint(cls, base_url: str) -> str:
        return endpoint_url(base_url)  # normalised: the allow-list is checked against the URL requested

    @field_validator("api_key_env")
    @classmethod
    def _key_name(cls, name: str | None) -> str | None:
        return key_variable(name) if name is not None else None  # never the GitHub token's variable


class CommandProviderConfig(StrictModel):
    """The user's own program: one JSON request per line on stdin, one JSON response per line on stdout."""

    type: Literal["command"]
    command: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="argv, no shell: e.g. [python, rag_app.py, --serve-jsonl]. Run from gate.yml's "
        "directory, with the environment minus GitHub's tokens.")
    concurrency: PositiveInt = Field(1, le=64, description="Programs running at once, each serving calls in turn.")
    timeout: PositiveFloat = Field(120.0, le=3600, description="Seconds a call may take.")


class LocalProviderConfig(StrictModel):
    """A Hugging Face causal LM run by the gate's runtime (CPU, or CUDA where `runtime.device` gives one)."""

    type: Literal["local"]
    model: str = Field(min_length=1, description="A local model directory, or a hub id pulled like the other "
                       "models (`llm-gate models pull`, `model_dir`).")


ProviderConfig = Annotated[OpenAIProviderConfig | CommandProviderConfig | LocalProviderConfig,
                           Field(discriminator="type")]


class ParametersConfig(StrictModel):
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: PositiveInt = Field(256, le=32_768)
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = Field(None, description="Passed to servers that honour it; part of the cassette key.")
    stop: list[str] = Field(default_factory=list, max_length=4)
    response_format: Literal["json_object"] | None = Field(
        None, description="`json_object`: ask for one JSON object (OpenAI's JSON mode; vLLM, Ollama and llama.cpp "
        "servers honour it too; the prompt must mention JSON). Sent to a command provider in `parameters`; a local "
        "model cannot be held to it. Part of the cassette key.")


class BudgetConfig(StrictModel):
    max_calls: PositiveInt | None = Field(None, description="Live calls at most; the rest are not sent and their "
                                          "items are unmeasured (never passed).")
    max_usd: PositiveFloat | None = Field(None, description="Dollars at most, by `price` (a call is sent only if "
                                          "its worst case still fits).")


class PriceConfig(StrictModel):
    prompt_per_million: float = Field(ge=0, description="USD per million prompt tokens.")
    completion_per_million: float = Field(ge=0, description="USD per million completion tokens.")


class GenerateConfig(StrictModel):
    """What a suite asks its provider; the answers become the records the suite reads."""

    provider: str = Field(pattern=PROVIDER_NAME, description="A name under gate.yml's `providers:`.")
    models: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        min_length=1, description="The models asked; each becomes a `model` of the records (a command provider "
        "receives it in each request).")
    dataset: Globs | None = Field(None, description="The kind's inputs (JSON or JSONL): questions (stability), "
                                  "probes (stereotype), queries (rag), prompts (heuristic); drift asks about the "
                                  "submissions of its `baseline:` exercise files and needs none.")
    prompt: str | None = Field(None, max_length=20_000, description="The prompt template; {field} takes a dataset "
                               "field (the kind's default when omitted).")
    system: str | None = Field(None, max_length=20_000, description="A system message before each prompt.")
    samples: PositiveInt = Field(1, le=100, description="Generations per prompt (k): more than 1 fills the "
                                 "records' `sample` field, so one run measures its own noise.")
    parameters: ParametersConfig = Field(default_factory=ParametersConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    price: PriceConfig | None = Field(None, description="Prices of the models asked, for the budget and the report.")
    output: str | None = Field(None, description="The JSON Lines file the generated records are written to, "
                               "relative to gate.yml; the suite's `records:` (drift: `candidates:`) must match it, "
                               "so a run reads them like any outputs (and the trusted job receives them like any "
                               "candidate files). Default: <the glob's folder>/<suite>.jsonl.")

    @model_validator(mode="after")
    def _dollars_need_a_price(self) -> GenerateConfig:
        if self.budget.max_usd is not None and self.price is None:
            raise invalid("`price` beside `budget.max_usd` (dollars are counted from tokens at that price)",
                          found=f"`budget.max_usd: {self.budget.max_usd:g}` without `price`",
                          fix="add `price: {prompt_per_million: <USD>, completion_per_million: <USD>}` or drop "
                              "`max_usd` (`max_calls` needs no price)")
        return self


def generated_file(suite_name: str, generate: GenerateConfig, reads: Sequence[str] | str | None) -> str | None:
    """Where a suite's generated records go (relative to gate.yml): `generate.output`, else `<the first glob's
    folder>/<suite>.jsonl` when that folder has no wildcard; None when neither gives one. `reads`: the globs of the
    field the kind reads its records from."""
    reads = [reads] if isinstance(reads, str) else reads  # a kind whose field is one path
    if generate.output is not None:
        return posixpath.normpath(generate.output)
    for pattern in reads or ():
        folder = posixpath.dirname(pattern)
        if not any(c in folder for c in "*?["):
            candidate = posixpath.join(folder, f"{suite_name}.jsonl")
            if any(fnmatch.fnmatchcase(candidate, p) for p in reads or ()):
                return posixpath.normpath(candidate)
    return None


def generation_problems(name: str, suite: object, reads: str | None, providers: Mapping[str, object]) -> list[
        tuple[str, str, str, str]]:
    """What is wrong with a suite's `generate:` beyond its schema, as (field, expected, found, fix): a provider
    gate.yml does not define, a parameter its provider cannot honour, a kind with no recipe (`reads` None), an
    output its records glob does not match."""
    generate = getattr(suite, "generate", None)
    if not isinstance(generate, GenerateConfig):
        return []
    where = f"suites.{name}.generate"
    problems = []
    if generate.provider not in providers:
        problems.append((f"{where}.provider", "a provider defined under `providers:`" + (
            f" ({', '.join(providers)})" if providers else ""), repr(generate.provider),
            "define it under gate.yml's `providers:` (type: openai, command or local)"))
    elif generate.parameters.response_format and isinstance(providers[generate.provider], LocalProviderConfig):
        problems.append((f"{where}.parameters.response_format", "a provider that can be held to a JSON answer (an "
                         "openai server, or a command that honours it)", f"local provider {generate.provider!r}",
                         "drop `response_format` and check the answers' shape in the rubric (`json_valid`)"))
    if reads is None:
        problems.append((where, "a suite whose kind can generate its records", f"kind {getattr(suite, 'kind', '?')}"
                         " has no generation recipe", "remove `generate:` and produce the records elsewhere"))
        return problems
    given = getattr(suite, reads, None) or []
    globs = [given] if isinstance(given, str) else list(given)
    output = generated_file(name, generate, globs)
    if output is None:
        problems.append((f"{where}.output", f"the file the generated records go to (no default: `{reads}:` has no "
                         "fixed folder)", "none", f"set `output:` to a .jsonl file that `{reads}:` matches"))
    elif output.startswith(("/", "../")) or output == "..":
        problems.append((f"{where}.output", "a path inside the workspace, relative to gate.yml", repr(output),
                         "name a file under the repository"))
    elif not any(fnmatch.fnmatchcase(output, p) for p in globs):
        problems.append((f"{where}.output", f"a file that `{reads}:` ({', '.join(globs)}) matches, so the run reads "
                         "what it generated", repr(output), f"add it to `{reads}:` or change `output:`"))
    return problems
