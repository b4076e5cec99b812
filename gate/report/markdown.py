"""Render the Markdown report from Jinja2 templates (StrictUndefined: a missing value is a bug, not a blank)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

import gate
from gate.kinds import KINDS
from gate.report.precompiled import PrecompiledLoader


def bundled_templates() -> Path:
    """`templates/` in a source checkout; `gate/templates/` inside an installed wheel."""
    package = Path(gate.__file__).parent
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "report.md.j2").is_file():
            return candidate
    raise FileNotFoundError("llm-quality-gate's templates are missing from this installation")


class KindTemplates(jinja2.BaseLoader):
    """`suites/<kind>.md.j2` and `suites/<kind>.details.md.j2` from the kind's own template directory
    (`Kind.templates`), for a kind that brings its templates along; the bundled ones otherwise."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        folder, _, name = template.partition("/")
        kind = KINDS.get(name.split(".")[0]) if folder == "suites" else None
        if kind is None or kind.templates is None:
            raise jinja2.TemplateNotFound(template)
        return jinja2.FileSystemLoader(str(kind.templates)).get_source(environment, name)

    def list_templates(self) -> list[str]:
        return []  # precompiling (scripts/compile-templates) covers the bundled templates only


@lru_cache(maxsize=4)
def environment(override_dir: str | None = None) -> jinja2.Environment:
    # Override templates come from the repository, possibly from the pull request under test: in a plain
    # Environment a template can reach Python internals (`''.__class__.__mro__`) and run code; the sandbox
    # refuses that, and the bundled templates need nothing it forbids. Without overrides the bundled templates
    # load from their precompiled modules (`gate.report.precompiled`).
    bundled = str(bundled_templates())
    if override_dir:
        factory: type[jinja2.Environment] = jinja2.sandbox.SandboxedEnvironment
        loader: jinja2.BaseLoader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(override_dir), KindTemplates(),
                                                         jinja2.FileSystemLoader(bundled)])
    else:
        factory = jinja2.Environment
        loader = jinja2.ChoiceLoader([KindTemplates(), PrecompiledLoader(bundled, "md")])
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
