"""The places gate.yml names for the gate to write to or read from, confined to the workspace at load time.

A gate.yml can come from the pull request under test. `report.output_dir`, `runtime.cache_dir`,
`report.templates_dir`, `history.path` and `baselines.dir` used to be taken as given (`cassettes` and a suite's
`generate.output` are written to as well): `output_dir: /abs` wrote the report outside the workspace, a
committed symlink `.gate-cache -> ~/.ssh` made the cache write
there. So `load_config` checks all of them (`gate.io.paths`: symlinks followed, a path that does not exist
yet through its deepest existing ancestor) before any command writes anything, and reports every escaping
path at once, located in gate.yml. The suites' own inputs, rubric files and model directories are confined
where they are read (`gate.io.read`, a kind's own files such as rubrics, `gate.runtime.engines.models`).

Relative paths keep their meaning: `report.output_dir`, `runtime.cache_dir` and `report.templates_dir` are
relative to the working directory, so they may also lie inside it (the workflow chose it, not gate.yml);
`history.path` and `baselines.dir` are relative to gate.yml. A default is checked like a value given, since a
symlink committed at `gate-report` or `.gate-cache` would lead the default out. `--output-dir` and the action
input `output_dir` are the workflow's choice and are not confined (`output_dir_given` skips report.output_dir).
"""

from __future__ import annotations

from pathlib import Path

from gate.config.gate import GateConfig
from gate.config.located import line_of, parse_yaml
from gate.errors import ConfigError, Problem
from gate.io import paths


def confine_config_paths(config: GateConfig, config_path: Path, text: str, *, output_dir_given: bool = False) -> None:
    """Raise one ConfigError listing every path of `config` that leaves the workspace (none: return)."""
    base_dir = config_path.resolve().parent
    here = Path.cwd()
    found: list[tuple[tuple[str, ...], bool, Problem]] = []

    def check(loc: tuple[str, ...], given: bool, path: Path, shown: str, relative_to_cwd: bool) -> None:
        problem = paths.outside(path, base_dir, ".".join(loc), shown, also_inside=here if relative_to_cwd else None,
                                fix=paths.WRITE_FIX if relative_to_cwd else paths.FIX)
        if problem is not None:
            found.append((loc, given, problem))

    report, runtime = config.report, config.runtime
    in_report = "report" in config.model_fields_set
    if not output_dir_given:
        check(("report", "output_dir"), in_report and "output_dir" in report.model_fields_set,
              Path(report.output_dir), report.output_dir, True)
    check(("runtime", "cache_dir"), "runtime" in config.model_fields_set and "cache_dir" in runtime.model_fields_set,
          Path(runtime.cache_dir), runtime.cache_dir, True)
    if report.templates_dir is not None:
        check(("report", "templates_dir"), True, Path(report.templates_dir), report.templates_dir, True)
    if config.history is not None:
        name = config.history.file_name(config.name)  # `{gate}` is the gate's name: it can carry `..` too
        check(("history", "path"), "path" in config.history.model_fields_set, base_dir / name, name, False)
    baselines = config.baselines
    check(("baselines", "dir"), "baselines" in config.model_fields_set and "dir" in baselines.model_fields_set,
          base_dir / baselines.dir, baselines.dir, False)
    check(("cassettes",), "cassettes" in config.model_fields_set, base_dir / config.cassettes, config.cassettes, False)
    for name, suite in config.suites.items():  # the generated records are written there
        generate = suite.generate
        if generate is not None and generate.output is not None:
            check(("suites", name, "generate", "output"), True, base_dir / generate.output, generate.output, False)
    if not found:
        return
    filename = str(config_path)
    _, root = parse_yaml(text, filename, "gate config")  # parsed again only to locate the problems
    problems = [Problem(file=filename, line=line_of(root, loc) if given else None, field=p.field,
                        expected=p.expected, found=p.found if given else f"the default {p.found}", fix=p.fix)
                for loc, given, p in found]
    raise ConfigError(f"{filename}: paths leave the workspace", problems)
