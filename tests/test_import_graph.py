"""The import graph of `gate/` (function-local imports included): no cycle, nothing imports upward (DESIGN.md §2).

A newcomer reads top-down — cli → run → {config, records, scorers, runtime, judge, baselines, report, publish} —
and each package may use only those below it. A cycle hidden behind a function-local import is still a cycle:
the two modules are one concept split in two, or a shared piece belongs lower down.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

GATE = Path(__file__).resolve().parent.parent / "gate"

KIND = "kinds/<kind>"  # the layer of every kind's own folder (a sub-package of gate.kinds)

# Lowest first. A module may import its own layer or a lower one, never a higher one.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"__init__", "errors", "stats"}),  # errors/ holds interrupt (standard library only)
    frozenset({"io"}),  # io/ holds redact
    frozenset({"config"}),  # config/ holds the workflow's Settings
    frozenset({"results"}),
    frozenset({"runtime"}),
    frozenset({"generate"}),  # providers, cassettes, budgets: a step before the records are loaded
    frozenset({"judge"}),
    frozenset({"kinds"}),  # the contract (`Kind`), the registry, the records and samples helpers every kind uses
    frozenset({"baselines"}),
    frozenset({"report"}),
    frozenset({KIND}),  # each kind's folder, gate/kinds/<kind>/: it uses the core; nothing in the core names it
    frozenset({"publish"}),
    frozenset({"run", "steps"}),
    frozenset({"cli"}),  # the command line and its commands (cli/commands/)
    frozenset({"__main__"}),
)


def modules() -> dict[str, Path]:
    found = {}
    for path in GATE.rglob("*.py"):
        parts = list(path.relative_to(GATE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the gate modules it imports anywhere in its body (`from gate.x import y` names module gate.x.y
    when that is a module, and gate.x itself: a submodule taking names from its own package's __init__, which
    imports it back, is a cycle; `import gate.x.y as y` names only the submodule)."""
    mods = modules()

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
                targets.append(base)  # `from pkg import sub` reads the name from pkg's __init__, which runs first
            for target in targets:
                if target.split(".")[0] == "gate" and (hit := known(target)) and hit != module:
                    graph[module].add(hit)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()  # the walk recurses once per module on a path; the limit is the process's
    sys.setrecursionlimit(max(10_000, limit))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else "__init__"
    if top == "kinds" and module.count(".") >= 2 and (GATE / "kinds" / module.split(".")[2]).is_dir():
        top = KIND  # a kind's folder sits above the core it uses, which loads it only through the registry
    for number, names in enumerate(LAYERS):
        if top in names:
            return number
    raise AssertionError(f"gate.{top} is in no layer of tests/test_import_graph.py: place it in LAYERS")


def test_the_import_graph_has_no_cycle():
    assert cycles(import_graph()) == [], "split by concept: move the shared piece into a lower module"


def test_nothing_imports_upward():
    upward = sorted(f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
                    for a, targets in import_graph().items() for b in targets if layer(b) > layer(a))
    assert upward == [], "\n".join(upward)


def test_every_top_level_name_has_a_layer():
    for module in modules():
        layer(module)


def test_the_checker_sees_function_local_imports(tmp_path):
    """The checker itself: a cycle behind a function-local import is found."""
    global GATE
    saved = GATE
    package = tmp_path / "gate"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from gate import b\n")
    (package / "b.py").write_text("def f():\n    from gate.a import x\n")
    (package / "p").mkdir()
    (package / "p" / "__init__.py").write_text("from gate.p.s import y\n")
    (package / "p" / "s.py").write_text("from gate.p import t\n")  # its own package's __init__ imports it back
    (package / "p" / "t.py").write_text("")
    try:
        GATE = package
        assert cycles(import_graph()) == [["gate.a", "gate.b"], ["gate.p", "gate.p.s"]]
    finally:
        GATE = saved
