"""How the PR comment degrades with the size of a drift gate, and whether it still names the culprit.

    .venv/bin/python benchmarks/comment_size.py                          # 1k/10k/50k items × 1/5/50 models
    .venv/bin/python benchmarks/comment_size.py --items 1000 --models 5 --scope model

Builds drift gates without a model (tests/support/fake_runtime.py scores the texts: the one failing model's
feedback differs from the baseline's) — `--submissions` per exercise, as many exercises as make `--items` —,
judges them, fits the comment as `llm-gate run` does (`gate.report.fit_markdown`, GitHub's 65,536 characters
less the marker and footer) and prints, per gate: its length and share of the budget, the level chosen (3 all,
2 no item details, 1 group rows cut, 0 summary with per-model verdicts) and what was cut, whether the failing
model is named with its ❌ verdict in a per-model table, and the time the fit took (building and judging the
gate not included). `--scope model` puts the checks on the models instead of each exercise × model group.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate.config import CheckConfig, GateConfig, ReportConfig, UnmeasuredPolicy  # noqa: E402
from gate.judge import GateVerdict, judge_gate, judge_suite  # noqa: E402
from gate.kinds.base import ScoringContext  # noqa: E402
from gate.kinds.drift import score_drift  # noqa: E402
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.records import load_drift  # noqa: E402
from gate.report import context, fit_markdown, sizing  # noqa: E402
from gate.steps.output import COMMENT_OVERHEAD  # noqa: E402
from tests.support.drift_fixtures import (  # noqa: E402
    candidate,
    feedback,
    submission,
    write_candidates,
    write_exercise,
)
from tests.support.fake_runtime import FakeRuntime  # noqa: E402

LIMIT = sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD
GOOD = feedback(("Criterion", "the answer is correct and complete", 2.0))
BAD = feedback(("Criterion", "something else entirely", 0.0))


def gate(root: Path, items: int, models: int, submissions: int, scope: str) -> tuple[GateVerdict, str]:
    """A judged drift gate of about `items` items whose last model fails; that model's name."""
    exercises = max(1, items // (models * submissions))
    names = [f"model-{m:03d}" for m in range(models)]
    for e in range(exercises):
        write_exercise(root / "baselines", 1000 + e, [submission(s, GOOD) for s in range(submissions)],
                       title=f"Exercise {e}")
    write_candidates(root / "outputs" / "c.jsonl", [
        candidate(1000 + e, s, m, BAD if m == names[-1] else GOOD)
        for m in names for e in range(exercises) for s in range(submissions)])
    suite = DriftSuiteConfig(kind="drift", baseline=["baselines/*.json"], candidates=["outputs/*.jsonl"])
    config = GateConfig(version=1, suites={"fb": suite})
    result = score_drift("fb", suite, load_drift("fb", suite, root), ScoringContext(config, FakeRuntime(), root))
    checks = {"bertscore_f1": CheckConfig(min=0.8, scope=scope), "credit_drift_mean": CheckConfig(max=1.0, scope=scope)}
    return judge_gate("g", [judge_suite(result, checks, UnmeasuredPolicy.WARN)]), names[-1]


def named(text: str, culprit: str) -> bool:
    """The culprit's row in a per-model table (the drift suite's own or the shortened report's), failed."""
    return bool(re.search(rf"^\| {re.escape(culprit)} \| ❌", text, re.M))


def measure(items: int, models: int, submissions: int, scope: str) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        verdict, culprit = gate(Path(directory), items, models, submissions, scope)
    run = context.RunInfo(generated_at="2026-11-24T00:00:00+00:00", output_dir="gate-report")
    started = time.perf_counter()
    fitted = fit_markdown(verdict, run, ReportConfig(), {}, LIMIT, "`gate-report/report.md`")
    seconds = time.perf_counter() - started
    cuts = [f"{name} {value:,}" for name, value in (("groups", fitted.groups), ("models", fitted.models),
                                                     ("checks", fitted.rows)) if value is not None]
    return {"items": sum(len(s.result.items) for s in verdict.suites), "models": models, "chars": len(fitted.text),
            "level": fitted.detail, "cut": ", ".join(cuts) or "-", "truncated": fitted.truncated,
            "named": named(fitted.text, culprit), "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--models", type=int, nargs="+", default=[1, 5, 50])
    parser.add_argument("--submissions", type=int, default=10, help="per exercise")
    parser.add_argument("--scope", choices=["group", "model"], default="group", help="where the checks apply")
    args = parser.parse_args(argv)
    print(f"comment budget {LIMIT:,} characters; checks per {'exercise × model' if args.scope == 'group' else 'model'}")
    print(f"{'items':>7} {'models':>6} {'chars':>7} {'used':>5} {'level':>5}  {'rows kept':<28} {'culprit':<8} "
          f"{'fit s':>6}")
    missed = 0
    for items in args.items:
        for models in args.models:
            row = measure(items, models, args.submissions, args.scope)
            missed += not row["named"] or row["truncated"]
            print(f"{row['items']:>7,} {row['models']:>6} {row['chars']:>7,} {row['chars'] / LIMIT:>5.0%} "
                  f"{row['level']:>5}  {row['cut'] + (' (truncated)' if row['truncated'] else ''):<28} "
                  f"{'named' if row['named'] else 'MISSING':<8} {row['seconds']:>6.2f}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
