"""`llm-gate sample`: write `sampled_exercise-<id>.json` files ready for baseline generation."""

from __future__ import annotations

import sys
from pathlib import Path

from gate import io
from gate.cli.commands.sampling import Scored, spread_sample, submission_score
from gate.errors import InputError, Problem, describe


def sample_exercises(paths: list[Path], output_dir: Path, per_exercise: int, seed: int) -> None:
    problems: list[Problem] = []
    plans = []
    exercise_files: dict[str, str] = {}
    for path in paths:
        document, bad = io.read_json_document(path)
        problems += bad
        if document is None:
            continue
        exercise = document.value
        file = document.source.file
        if not isinstance(exercise, dict) or not isinstance(exercise.get("submissions"), list):
            problems.append(Problem(file=file, line=1, expected="an exercise object with a `submissions` list",
                                    found=describe(exercise)))
            continue
        if "id" not in exercise:
            problems.append(Problem(file=file, line=1, field="id", expected="an exercise id", found="nothing"))
            continue
        first = exercise_files.setdefault(str(exercise["id"]), file)
        if first != file:  # both would be written to the same sampled_exercise-<id>.json
            problems.append(Problem(file=file, line=1, field="id", expected="one input file per exercise id",
                                    found=f"exercise {exercise['id']} again (first in {first})"))
            continue
        scored, seen = [], set()
        for index, submission in enumerate(exercise["submissions"]):
            line = document.line_of("submissions", index)
            score = submission_score(submission) if isinstance(submission, dict) else None
            if not isinstance(submission, dict) or "id" not in submission:
                problems.append(Problem(file=file, line=line, record=f"submission {index + 1}", field="id",
                                        expected="a submission object with an `id`", found=describe(submission)))
            elif str(submission["id"]) in seen:
                problems.append(Problem(file=file, line=line, record=f"submission {index + 1}", field="id",
                                        expected="unique submission ids", found=f"submission {submission['id']} twice"))
            elif score is None:
                problems.append(Problem(file=file, line=line, record=f"submission {submission['id']}",
                                        expected="a score: `score`, or credits in `feedback` / `baseline_feedback`",
                                        found="none", fix="add the tutor's total as `score`"))
            else:
                scored.append(Scored(str(submission["id"]), score))
            if isinstance(submission, dict) and "id" in submission:
                seen.add(str(submission["id"]))
        plans.append((exercise, scored))
    if problems:
        raise InputError("cannot sample: input files are invalid", problems)
    for exercise, scored in plans:
        picked = spread_sample(scored, per_exercise, seed)
        keep = {s.id for s in picked}
        order = {s.id: i for i, s in enumerate(picked)}
        submissions = sorted((s for s in exercise["submissions"] if str(s["id"]) in keep),
                             key=lambda s: order[str(s["id"])])
        target = output_dir / f"sampled_exercise-{exercise['id']}.json"
        io.write_json_atomic(target, {**exercise, "submissions": submissions})
        scores = ", ".join(f"{s.score:g}" for s in picked)
        sys.stdout.write(f"exercise {exercise['id']}: {len(picked)} of {len(scored)} submissions "
                         f"(scores {scores}) -> {io.display_path(target)}\n")
