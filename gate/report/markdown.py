"""Render the Markdown report from Jinja2 templates (StrictUndefined: a missing value is a bug, not a blank)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

import gate
from gate.report.precompiled import PrecompiledLoader


def bundled_templates() -> Path:
    """`templates/` in a source checkout; `gate/templates/` inside an installed wheel."""
    package = Path(gate.__file__).parent
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "report.md.j2").is_file():
            return candidate
    raise FileNotFoundError("llm-quality-gate's templates are missing from this installation")


@lru_cache(maxsize=4)
def environment(override_dir: str | None = None) -> jinja2.Environment:
    # Override templates come from the repository, possibly from the pull request under test: in a plain
    # Environment a template can reach Python internals (`''.__class__.__mro__`) and run code; the sandbox
    # refuses that, and the bundled templates need nothing it forbids. Without overrides the bundled templates
    # load from their precompiled modules (`gate.report.precompiled`).
    bundled = str(bundled_templates())
    if override_dir:
        factory: type[jinja2.Environment] = jinja2.sandbox.SandboxedEnvironment
        loader: jinja2.BaseLoader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(override_dir),
                                                         jinja2.FileSystemLoader(bundled)])
    else:
        factory, loader = jinja2.Environment, PrecompiledLoader(bundled, "md")
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
