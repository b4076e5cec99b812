"""The generation step, before the records are loaded: each selected suite with `generate:` asks its kind's recipe
(`Kind.generation`) for the calls, answers them from its committed cassettes (`gate.generate.runner`), calls the
provider only where the mode allows, and writes the records the kind reads to the suite's generated file — so the
load, the scorers and the trusted job see them like any outputs produced elsewhere.

Who may call out (SECURITY.md):
- `replay` is the default: a miss is an error naming the command that records it; no provider is built, no key read.
- A pull request from a fork replays only (its run holds no secret, and its gate.yml is not to be trusted with one);
  asking it for another mode is an error.
- The trusted job (`candidates_dir`) generates nothing: the pull request's run generated the records, and they come
  with its other candidate files. So a command provider (the pull request's own program) never runs there.
- An `openai` provider sends only where the workflow's allow-list lets it, with the key the workflow names
  (`gate.generate.providers.access`).
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from gate import io
from gate.config import GateConfig, SuiteBase
from gate.config.generation import CommandProviderConfig, GenerateConfig, OpenAIProviderConfig, generated_file
from gate.config.settings import Settings
from gate.errors import ConfigError, InputError, Problem
from gate.generate.budget import Budget, GenerationSummary, Price
from gate.generate.cassettes import Cassette, CassetteFingerprint, Mode, cassette_path
from gate.generate.plan import make_plan
from gate.generate.providers.types import Provider
from gate.generate.runner import generate
from gate.io import paths
from gate.kinds import get_kind
from gate.kinds.generation import Answered, Call, Generation
from gate.results import SuiteResult
from gate.steps.output import read_event


@dataclass(frozen=True)
class ModelGeneration:
    """One suite's calls to one model: what the cassette answered, what was called, what it cost."""

    provider: str
    model: str
    cassette: Path
    summary: GenerationSummary
    fingerprint: CassetteFingerprint


@dataclass(frozen=True)
class SuiteGeneration:
    suite: str
    output: Path  # the records file written (relative to gate.yml as gate.yml names it)
    records: int
    models: tuple[ModelGeneration, ...]
    mode: str


@dataclass(frozen=True)
class Generated:
    """What the generation step did: per suite, and the notes the run shows (why it did not run, a forced mode)."""

    suites: tuple[SuiteGeneration, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any] | None:
        """report.json's `generation` (None: no suite generated): per suite and model, the calls replayed, recorded,
        failed and not sent, tokens, cost, latency and the model versions the cassette holds."""
        if not self.suites and not self.notes:
            return None
        return {"notes": list(self.notes), "suites": [
            {"suite": s.suite, "output": s.output.as_posix(), "records": s.records, "mode": s.mode,
             "models": [{"provider": m.provider, "model": m.model, "cassette": io.display_path(m.cassette),
                         **asdict(m.summary)} for m in s.models]} for s in self.suites]}


def generating(selected: Sequence[tuple[str, SuiteBase]]) -> list[tuple[str, SuiteBase]]:
    return [(name, suite) for name, suite in selected if suite.generate is not None]


def generate_records(config: GateConfig, selected: Sequence[tuple[str, SuiteBase]], settings: Settings) -> Generated:
    """Run the generation of every selected suite that has `generate:`; nothing when none has."""
    suites = generating(selected)
    if not suites:
        return Generated()
    if settings.candidates_dir is not None:
        names = ", ".join(n for n, _ in suites)
        return Generated(notes=(f"generation: not run here (the trusted job): the records of {names} come with the "
                                "pull request run's candidate files",))
    mode, notes = cassette_mode(settings, read_event(settings))
    base_dir = settings.config_path.resolve().parent
    done = []
    for name, suite in suites:
        done.append(_suite(name, suite, config, base_dir, settings, mode))
    if settings.generate_dry_run:
        return Generated(notes=tuple(notes), dry_run=True)
    return Generated(tuple(d for d in done if d is not None), tuple(notes))


def fingerprinted(results: Sequence[SuiteResult], selected: Sequence[tuple[str, SuiteBase]],
                  base_dir: Path) -> list[SuiteResult]:
    """Each generating suite's fingerprint gains the model versions its generated records say answered them
    (`generated_by`; the recipes write a record's `model_version`), read from the file the suite read, so the pull
    request's run, the trusted job and `baseline bless` compute the same thing: a snapshot of answers from another
    model version is "not comparable", as one from another scorer is."""
    generators = {name: suite for name, suite in generating(selected)}
    out = []
    for result in results:
        suite = generators.get(result.name)
        recipe = get_kind(suite.kind).generation if suite is not None else None
        if suite is None or suite.generate is None or recipe is None:
            out.append(result)
            continue
        output = generated_file(result.name, suite.generate, getattr(suite, recipe.reads, None))
        paths, _ = io.expand_globs([output] if output else [], base_dir, f"suites.{result.name}.generate.output",
                                   data=True)
        raws, _ = io.read_records(paths)
        versions = sorted({str(r.data["model_version"]) for r in raws if r.data.get("model_version")})
        out.append(replace(result, fingerprint={**result.fingerprint, "generated_by": versions or ["unknown"]}))
    return out


def cassette_mode(settings: Settings, event: dict[str, Any] | None) -> tuple[Mode, list[str]]:
    """The mode the workflow asked for (replay when none), refused for a fork's pull request."""
    asked = Mode(settings.cassettes) if settings.cassettes else Mode.REPLAY
    fork = from_a_fork(event)
    if fork and asked is not Mode.REPLAY:
        raise ConfigError("a pull request from a fork replays only", [Problem(
            field="cassettes", expected="replay (a fork's run holds no secret and calls no model)",
            found=f"{asked.value}, on a pull request from {fork}",
            fix="record the cassettes in the fork (`llm-gate generate --cassettes record-missing`) and commit them")])
    return asked, ([f"generation: replay only (a pull request from {fork})"] if fork else [])


def from_a_fork(event: dict[str, Any] | None) -> str | None:
    """The head repository of a pull request from another repository (None: not one)."""
    pr = (event or {}).get("pull_request")
    head = ((pr or {}).get("head") or {}).get("repo") if isinstance(pr, dict) else None
    base = ((pr or {}).get("base") or {}).get("repo") if isinstance(pr, dict) else None
    if not isinstance(head, dict):
        return None
    head_name, base_name = head.get("full_name"), (base or {}).get("full_name") if isinstance(base, dict) else None
    if head.get("fork") is True or (head_name and base_name and head_name != base_name):
        return str(head_name or "a fork")
    return None


@dataclass(frozen=True)
class _Prepared:
    """A generating suite's calls per model, and where its data go."""

    recipe: Generation[Any]
    output: str  # the generated file, relative to the data directory
    by_model: dict[str, list[Call]]
    data_dir: Path
    cassettes: Path
    price: Price | None


def _prepared(name: str, suite: SuiteBase, config: GateConfig, base_dir: Path) -> _Prepared:
    generate_config = suite.generate
    assert generate_config is not None
    recipe: Generation[Any] | None = get_kind(suite.kind).generation
    if recipe is None:  # the loader refuses it; a kind unregistered since is still no reason for a traceback
        raise ConfigError(f"suite {name}: its kind cannot generate", [Problem(
            field=f"suites.{name}.generate", expected="a kind with a generation recipe", found=suite.kind,
            fix="remove `generate:`")])
    output = generated_file(name, generate_config, getattr(suite, recipe.reads, None))
    assert output is not None  # checked when gate.yml was loaded
    by_model: dict[str, list[Call]] = {}
    for call in recipe.calls(name, suite, generate_config, base_dir):
        by_model.setdefault(call.request.model, []).append(call)
    # The pull request's data — its dataset, its cassettes, the records it generates — live where the suite's
    # records are read: beside gate.yml, or under the pull request's tree when gate.yml comes from a base checkout.
    data_dir, _, problem = paths.data_place(base_dir, f"suites.{name}.generate")
    if problem is not None:
        raise InputError(f"suite {name}: where its generated data go", [problem])
    price = Price(generate_config.price.prompt_per_million, generate_config.price.completion_per_million) \
        if generate_config.price else None
    return _Prepared(recipe, output, by_model, data_dir, data_dir / config.cassettes, price)


def replay_coverage(name: str, suite: SuiteBase, config: GateConfig, config_path: Path) -> tuple[Path, list[Problem]]:
    """What `validate` checks of a generating suite without calling anything: its dataset (the recipe's located
    errors, raised), and whether a replay finds every call in the cassettes — a problem per cassette that lacks
    some, with the command that records them. Returns the generated file (under the data directory) too."""
    found = _prepared(name, suite, config, config_path.resolve().parent)
    assert suite.generate is not None
    problems = []
    for model, model_calls in found.by_model.items():
        path = cassette_path(found.cassettes, name, suite.generate.provider, model)
        plan = make_plan([c.request for c in model_calls], suite.generate.provider,
                         Cassette.load(path, suite.generate.provider, model), Mode.REPLAY)
        if plan.missing:
            problems.append(Problem(
                file=io.display_path(path), field=f"suites.{name}.generate",
                expected=f"every one of the {plan.calls} calls to {suite.generate.provider} / {model} recorded "
                "(a run replays them)", found=f"{plan.missing} not in the cassette",
                fix=f"record them: `{record_command_for(name, config_path)}`, and commit the cassette"))
    return found.data_dir / found.output, problems


def _suite(name: str, suite: SuiteBase, config: GateConfig, base_dir: Path, settings: Settings,
           mode: Mode) -> SuiteGeneration | None:
    generate_config = suite.generate
    assert generate_config is not None
    found = _prepared(name, suite, config, base_dir)
    recipe, output, by_model, data_dir, directory, price = (found.recipe, found.output, found.by_model,
                                                           found.data_dir, found.cassettes, found.price)
    provider_name = generate_config.provider
    command = record_command(settings, name)
    if settings.generate_dry_run:
        for model, model_calls in by_model.items():
            cassette = Cassette.load(cassette_path(directory, name, provider_name, model), provider_name, model)
            plan = make_plan([c.request for c in model_calls], provider_name, cassette, mode, price=price,
                             budget=_budget(generate_config))
            sys.stdout.write(plan.render(name, provider_name, model) + "\n")
        return None
    answered: list[Answered] = []
    models: list[ModelGeneration] = []
    spent_calls, spent_usd = 0, 0.0
    provider: Provider | None = None
    try:
        for model, model_calls in by_model.items():
            path = cassette_path(directory, name, provider_name, model)
            cassette = Cassette.load(path, provider_name, model)
            requests = [c.request for c in model_calls]
            if provider is None and mode is not Mode.REPLAY:
                provider = build_provider(config, provider_name, settings, base_dir, where=f"suites.{name}.generate")
            run = generate(requests, cassette, mode, provider=provider, record_command=command,
                           budget=_budget(generate_config, spent_calls, spent_usd), price=price)
            spent_calls += run.summary.recorded + run.summary.failed
            spent_usd += run.summary.cost_usd or 0.0
            answered += [(c, o.response) for c, o in zip(model_calls, run.outcomes, strict=True)]
            models.append(ModelGeneration(provider_name, model, path, run.summary, run.fingerprint))
    finally:
        if provider is not None:
            provider.close()
    records = recipe.records(suite, generate_config, answered)
    io.write_text_atomic(data_dir / output, "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n"
                                                    for r in records))
    return SuiteGeneration(name, Path(output), len(records), tuple(models), mode.value)


def _budget(generate_config: GenerateConfig, calls: int = 0, usd: float = 0.0) -> Budget:
    """The suite's budget less what its earlier models spent."""
    budget = generate_config.budget
    return Budget(max_calls=None if budget.max_calls is None else max(0, budget.max_calls - calls),
                  max_usd=None if budget.max_usd is None else max(0.0, budget.max_usd - usd))


def record_command(settings: Settings, suite: str) -> str:
    """The exact command that records what a suite's cassettes lack."""
    return record_command_for(suite, settings.config_path)


def record_command_for(suite: str, config_path: Path = Path("gate.yml")) -> str:
    config = [] if str(config_path) == "gate.yml" else ["--config", str(config_path)]
    return shlex.join(["llm-gate", "generate", *config, "--suite", suite, "--cassettes", "record-missing"])


def build_provider(config: GateConfig, name: str, settings: Settings, base_dir: Path, *, where: str) -> Provider:
    """The provider gate.yml defines under `name`, allowed by the workflow; built only when a call is to be made."""
    from gate.generate.providers.access import authorise

    given = config.providers[name]
    if isinstance(given, OpenAIProviderConfig):
        from gate.generate.providers.openai import OpenAIProvider, OpenAISettings
        from gate.generate.providers.retry import RetryPolicy

        credentials = authorise(given.base_url, settings.grader, key_env=given.api_key_env, keyless=given.keyless,
                                where=f"providers.{name}")
        return OpenAIProvider(credentials, OpenAISettings(name=name, timeout=given.timeout,
                                                          concurrency=given.concurrency,
                                                          retry=RetryPolicy(max_retries=given.max_retries)))
    if isinstance(given, CommandProviderConfig):
        if settings.candidates_dir is not None:  # never reached: the trusted job generates nothing
            raise InputError("a command provider never runs in the trusted job", [Problem(
                field=where, expected="generation in the pull request's own run", found="the trusted job",
                fix="generate in the pull_request workflow and upload the records with the candidates")])
        from gate.generate.providers.command import CommandProvider, CommandSettings

        return CommandProvider(CommandSettings(argv=tuple(given.command), name=name, timeout=given.timeout,
                                               concurrency=given.concurrency, cwd=str(base_dir)))
    from gate.generate.providers.local import LocalProvider
    from gate.runtime.facade import causal_lm

    engine: Any = causal_lm(given.model, config.runtime, base_dir, model_dirs=settings.model_dirs,
                            hub_offline=settings.hub_offline, pull_into=settings.model_dir)
    return LocalProvider(engine, name=name)

