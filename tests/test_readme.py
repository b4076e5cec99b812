"""The README and the docs stay true: the set-up commands, the configuration guide, the metric names, the
command table. (Every code block is checked in tests/test_docs.py.)"""

from __future__ import annotations

import re

from pydantic import BaseModel

from gate.config import GateConfig, suite_configs
from gate.kinds import KINDS
from tests.conftest import REPO
from tests.support import docs

README = (REPO / "README.md").read_text()
CONFIGURATION = (REPO / "docs" / "configuration.md").read_text()  # the hand-written guide's field table
DOCS = docs.text()  # README + docs/**/*.md


def field_paths(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Dotted paths of every leaf setting, descending into nested models (`models.bertscore.layer`)."""
    paths = []
    for name, field in model.model_fields.items():
        built = getattr(field.annotation, "registered_annotation", None)  # `models:`, built from the kinds
        annotation = built() if callable(built) else field.annotation
        nested = [a for a in getattr(annotation, "__args__", (annotation,))
                  if isinstance(a, type) and issubclass(a, BaseModel)]
        paths += field_paths(nested[0], f"{prefix}{name}.") if nested else [prefix + name]
    return paths


def test_every_config_field_is_in_the_reference():
    documented = set(re.findall(r"^\| `([^`]+)` \|", CONFIGURATION, flags=re.MULTILINE))
    expected = [p for p in field_paths(GateConfig) if p != "suites"]
    for suite_model in suite_configs():
        expected += [f"suites.<name>.{name}" for name in suite_model.model_fields]
    missing = [p for p in expected if p not in documented]
    assert not missing, f"document these in docs/configuration.md's table: {missing}"


def test_every_metric_and_kind_is_named():
    for kind, scorer in KINDS.items():
        assert f"`{kind}`" in DOCS
        for metric in scorer.metrics:
            family = metric.rsplit("_", 1)[0]  # `<metric>_<stat>` families are documented once
            pattern = scorer.metric_pattern
            assert f"`{metric}`" in DOCS or (pattern and pattern.match(metric) and f"`{family}`" in DOCS), metric


INSTALL = ('pip install -c constraints.txt --extra-index-url https://download.pytorch.org/whl/cpu -e ".[test]" && '
           'llm-gate run --config examples/gate.yml')


def test_setup_commands_are_the_ones_ci_runs():
    assert INSTALL in README
    assert "HF_HUB_OFFLINE=1 python -m pytest -q -n auto --dist loadgroup" in README  # every core (xdist)
    getting_started = (REPO / "docs" / "getting-started.md").read_text()
    assert INSTALL in getting_started
    ci = (REPO / ".ci" / "run").read_text()
    assert 'pip install -q -c constraints.txt -e ".[test,docs]"' in ci  # the README's install, plus the docs site
    assert "python -m mkdocs build --strict" in ci
    assert "HF_HUB_OFFLINE=1 python -m pytest -q -n auto --dist loadgroup" in ci
    assert "llm-gate run --config examples/gate.yml" in ci
    assert "torch==" in (REPO / "constraints.txt").read_text()


def test_every_command_in_the_table_exists():
    from typer.main import get_command

    from gate.cli import app

    root = get_command(app)
    table = re.findall(r"^\| `llm-gate ([a-z]+(?: [a-z]+)?)", (REPO / "docs" / "commands.md").read_text(),
                       flags=re.MULTILINE)
    assert len(table) >= 10
    for line in table:
        words = line.split()
        command = root.commands.get(words[0]) if hasattr(root, "commands") else None
        assert command is not None, line
        if len(words) > 1 and words[1] in getattr(command, "commands", {}):
            continue
        assert len(words) == 1 or not hasattr(command, "commands"), line


# Every section of the README before it became a landing page (issue 22) still has a home: README or docs/.
OLD_SECTIONS = {
    "Set-up: two commands": "getting-started.md", "The report": "report.md", "The bundled example": "example.md",
    "Commands": "commands.md", "Use it in a GitHub workflow": "github.md", "Inputs and outputs": "github.md",
    "Matrix jobs: compute in many, publish from one": "github.md",
    "Sharding suites that outgrow one runner": "github.md", "Pull requests from forks": "github.md",
    "Run it locally with docker run": "containers.md", "GPUs": "containers.md",
    "How the RAG suite measures": "suites/rag.md", "How the heuristic suite measures": "suites/heuristic.md",
    "How the stability suite measures": "suites/stability.md",
    "How the stereotype suite measures": "suites/stereotype.md", "How the drift suite measures": "suites/drift.md",
    "Baselines, history and trends": "baselines.md", "The recipe (what `benchmarks/trust.py` measures)": "baselines.md",
    "Speed: one runtime, a persistent cache and a benchmark": "performance.md",
    "Configuration reference (`gate.yml`)": "configuration.md", "Checks": "concepts.md",
    "Models, offline first": "models.md", "Status": "development.md", "Development": "development.md",
}


def test_every_old_readme_section_has_a_home():
    for title, page in OLD_SECTIONS.items():
        text = (REPO / "docs" / page).read_text()
        assert re.search(rf"^#+ {re.escape(title)}$", text, flags=re.MULTILINE), (title, page)
    for kind in KINDS:
        text = (REPO / "docs" / "suites" / f"{kind}.md").read_text()
        assert "## Input records" in text, kind


def test_the_install_line_takes_torchs_cpu_build_of_the_locked_version():
    """The README's command 1 names the PyTorch CPU index (PyPI's Linux torch is the CUDA build, several GB), and
    the torch it names is constraints.txt's pin and requirements-image.lock's version (the image's CPU build)."""
    import re

    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    [pin] = re.findall(r"^torch==(\S+)$", (REPO / "constraints.txt").read_text(), re.MULTILINE)
    [locked] = re.findall(r"^torch==(\S+) ", (REPO / "requirements-image.lock").read_text(), re.MULTILINE)
    assert locked == f"{pin}+cpu"  # the image's CPU build of the version a fresh clone pins
    getting_started = (REPO / "docs" / "getting-started.md").read_text()
    for page in (README, getting_started):
        assert "--extra-index-url https://download.pytorch.org/whl/cpu" in page
        assert f"`torch=={pin}`" in page and f"`{pin}+cpu`" in page  # the line that says why
    # pip takes the CPU index's build for the pin: `==X` matches `X+cpu`, which sorts above PyPI's `X`
    assert Version(locked) in SpecifierSet(f"=={pin}") and Version(locked) > Version(pin)
