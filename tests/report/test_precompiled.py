"""Templates compiled ahead (`gate.report.precompiled`, `scripts/compile-templates`): the committed modules are
current, every bundled template loads from its module without compiling, renders exactly what compiling renders,
and anything that does not match (an edited template, another Jinja2) is compiled from source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

from gate.config import ReportConfig
from gate.report import dashboard, markdown, precompiled, render_markdown
from gate.report.context import RunInfo
from tests.report.verdict_fixtures import gate, judged, stability_result

REPO = Path(__file__).resolve().parents[2]
RUN = RunInfo(generated_at="2026-11-24T10:00:00+00:00", output_dir="gate-report", commit="abcdef1234567")


@pytest.fixture(autouse=True)
def fresh_environments():
    markdown.environment.cache_clear()
    dashboard._environment.cache_clear()
    yield
    markdown.environment.cache_clear()
    dashboard._environment.cache_clear()


def script():
    import importlib.util
    from importlib.machinery import SourceFileLoader

    loader = SourceFileLoader("compile_templates", str(REPO / "scripts" / "compile-templates"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def bundled() -> list[tuple[jinja2.Environment, str]]:
    """The templates scripts/compile-templates compiles ahead, with their environments."""
    return [(environment, name) for _, environment, name in script().templates()]


def test_the_committed_modules_are_what_the_script_writes():
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "compile-templates"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_bundled_template_loads_from_its_module_without_compiling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("compiled from source")

    names = []
    for environment, name in bundled():
        monkeypatch.setattr(environment, "compile", refuse)
        filename = environment.get_template(name).filename
        assert filename is not None and filename.endswith(name.rpartition("/")[2])
        names.append(Path(filename).resolve().relative_to(REPO).as_posix())
    # the built-in kinds' own templates too (gate/kinds/<kind>/templates/): report parts, init's starter files
    assert {"gate/kinds/drift/templates/drift.md.j2", "gate/kinds/rag/templates/rag.details.md.j2",
            "gate/kinds/drift/templates/init/suite.yml.j2"} <= set(names)


def test_a_module_names_its_template_s_real_path():
    header = (REPO / "gate" / "report" / "compiled" / "md_suites_stability_md_j2.py").read_text().splitlines()[0]
    assert "from gate/kinds/stability/templates/stability.md.j2:" in header


def test_a_precompiled_report_is_exactly_the_compiled_one(monkeypatch):
    result = stability_result("stability", models=3, tasks=2, items=12)
    verdict = gate(judged(result, []))
    fast = (render_markdown(verdict, RUN, ReportConfig()), dashboard.render(verdict, RUN))
    markdown.environment.cache_clear()
    dashboard._environment.cache_clear()
    monkeypatch.setattr(precompiled, "_current_module", lambda *args: None)
    slow = (render_markdown(verdict, RUN, ReportConfig()), dashboard.render(verdict, RUN))
    assert fast == slow and "stability" in fast[0]


def test_an_edited_template_is_compiled_from_its_source(monkeypatch):
    original = precompiled.PrecompiledLoader.get_source

    def edited(self, environment, name):
        source, filename, uptodate = original(self, environment, name)
        return (source + "EDITED", filename, uptodate) if name == "suites/none.md.j2" else (source, filename, uptodate)

    monkeypatch.setattr(precompiled.PrecompiledLoader, "get_source", edited)
    assert markdown.environment(None).get_template("suites/none.md.j2").render().endswith("EDITED")


def test_another_jinja2_compiles_from_source(monkeypatch):
    compiled = []
    environment = markdown.environment(None)
    original = environment.compile
    monkeypatch.setattr(environment, "compile", lambda *a, **k: compiled.append(a[1]) or original(*a, **k))
    monkeypatch.setattr(jinja2, "__version__", "0.0.1")
    environment.get_template("suites/none.md.j2")
    assert compiled == ["suites/none.md.j2"]


def test_an_environment_of_other_options_compiles_from_source():
    bundled_dir = str(markdown.bundled_templates())
    other = jinja2.Environment(loader=precompiled.PrecompiledLoader(bundled_dir, "md"), trim_blocks=False)
    assert precompiled.options(other) != precompiled.options(markdown.environment(None))
    source = (Path(bundled_dir) / "suites" / "none.md.j2").read_text(encoding="utf-8")
    ours = precompiled.options(markdown.environment(None))
    assert precompiled._current_module("md_suites_none_md_j2", source, ours) is not None
    assert precompiled._current_module("md_suites_none_md_j2", source, precompiled.options(other)) is None


def test_an_edited_kind_template_is_compiled_from_its_source(monkeypatch):
    """A built-in kind's template (`Kind.templates`, read by KindTemplates) loads from its module only while the
    module is current, like the bundled ones."""
    compiled = []
    environment = markdown.environment(None)
    original_compile = environment.compile
    monkeypatch.setattr(environment, "compile", lambda *a, **k: compiled.append(a[1]) or original_compile(*a, **k))
    template = environment.get_template("suites/stability.md.j2")
    assert compiled == [] and template.filename.endswith("gate/kinds/stability/templates/stability.md.j2")

    original = markdown.KindTemplates.get_source

    def edited(self, environment, name):
        source, filename, uptodate = original(self, environment, name)
        return (source + "EDITED", filename, uptodate) if name == "suites/stability.details.md.j2" else (
            source, filename, uptodate)

    monkeypatch.setattr(markdown.KindTemplates, "get_source", edited)
    environment.get_template("suites/stability.details.md.j2")
    assert compiled == ["suites/stability.details.md.j2"]


def test_a_repository_override_replaces_a_kind_s_template_by_the_same_name(tmp_path):
    result = stability_result("stability", models=2, tasks=1, items=4)
    verdict = gate(judged(result, []))
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "stability.md.j2").write_text("OVERRIDDEN {{ suite.name }}\n")
    text = render_markdown(verdict, RUN, ReportConfig(templates_dir=str(tmp_path)))
    assert "OVERRIDDEN stability" in text
    assert "OVERRIDDEN" not in render_markdown(verdict, RUN, ReportConfig())
