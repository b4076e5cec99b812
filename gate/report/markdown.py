"""Render the Markdown report from Jinja2 templates (StrictUndefined: a missing value is a bug, not a blank)."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

import gate
from gate.kinds import KINDS
from gate.report.precompiled import PrecompiledLoader, from_module


def bundled_templates() -> Path:
    """`templates/` in a source checkout; `gate/templates/` inside an installed wheel."""
    package = Path(gate.__file__).parent
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "report.md.j2").is_file():
            return candidate
    raise FileNotFoundError("llm-quality-gate's templates are missing from this installation")


class KindTemplates(jinja2.BaseLoader):
    """The registered kinds' own templates (`Kind.templates`): its report parts as `suites/<kind>.md.j2` and
    `suites/<kind>.details.md.j2` (the files `<kind>.md.j2` and `<kind>.details.md.j2` there) and every file there
    as `kinds/<kind>/<path>` (its `llm-gate init` starter, its exports' templates). `prefix` (the environment's
    module prefix, `gate.report.precompiled`): a template loads from its compiled module where one is current (the
    built-in kinds'), else from source, like a third-party kind's; None: always from source."""

    def __init__(self, prefix: str | None = None):
        self.prefix = prefix

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        found = _locate(template)
        if found is None:
            raise jinja2.TemplateNotFound(template)
        return jinja2.FileSystemLoader(str(found[0])).get_source(environment, found[1])

    @jinja2.utils.internalcode
    def load(self, environment: jinja2.Environment, name: str,
             globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        loaded = None
        if self.prefix is not None:
            loaded = from_module(environment, self.prefix, name, self.get_source(environment, name), globals)
        return loaded if loaded is not None else super().load(environment, name, globals)

    def list_templates(self) -> list[str]:
        names = []
        for kind in KINDS.values():
            if kind.templates is None or not Path(kind.templates).is_dir():
                continue
            for path in sorted(Path(kind.templates).rglob("*")):
                relative = path.relative_to(kind.templates).as_posix()
                if path.is_file() and "__pycache__" not in path.parts:
                    own = relative in (f"{kind.kind}.md.j2", f"{kind.kind}.details.md.j2")
                    names.append(f"suites/{relative}" if own else f"kinds/{kind.kind}/{relative}")
        return names


def _locate(template: str) -> tuple[Path, str] | None:
    """(a kind's template directory, the file's path in it) for one of KindTemplates' names, or None."""
    folder, _, rest = template.partition("/")
    if folder == "suites":
        kind, path = KINDS.get(rest.split(".")[0]), rest
    elif folder == "kinds":
        name, _, path = rest.partition("/")
        kind = KINDS.get(name)
    else:
        return None
    return (Path(kind.templates), path) if kind is not None and kind.templates is not None and path else None


@lru_cache(maxsize=4)
def environment(override_dir: str | None = None) -> jinja2.Environment:
    # Override templates come from the repository, possibly from the pull request under test: in a plain
    # Environment a template can reach Python internals (`''.__class__.__mro__`) and run code; the sandbox
    # refuses that, and the bundled templates need nothing it forbids. Without overrides the bundled templates (and
    # the built-in kinds') load from their precompiled modules (`gate.report.precompiled`).
    bundled = str(bundled_templates())
    if override_dir:
        factory: type[jinja2.Environment] = jinja2.sandbox.SandboxedEnvironment
        loader: jinja2.BaseLoader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(override_dir), KindTemplates(),
                                                         jinja2.FileSystemLoader(bundled)])
    else:
        factory = jinja2.Environment
        loader = jinja2.ChoiceLoader([KindTemplates("md"), PrecompiledLoader(bundled, "md")])
    return factory(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # Markdown, not HTML: every input string is escaped in report/context.py
    )


def render(context: dict[str, Any], template: str = "report.md.j2", override_dir: str | None = None) -> str:
    # absolute before the cache: a relative templates_dir means the working directory's, which can change
    return environment(os.path.abspath(override_dir) if override_dir else None).get_template(template).render(**context)
