"""The package structure (docs/architecture.md): each package one role, every import pointing down, no import
cycles, the game kit naming no game, and no code outside the registry deciding by a game's name.

Imports are read from the source (every `import` statement, also those inside functions), so a lazy import that
points the wrong way fails here even when no test happens to run it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tower.games import game_names

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tower", "physics", "cardgames", "viewer")

#: Layer of each module prefix (the longest prefix wins) and the layers it may import from.
LAYERS = {
    "tower": "kit",  # tower/__init__.py and tower/__main__.py (the entry point is checked with the app)
    "tower.__main__": "app",
    "tower.games": "kit",
    "tower.climbers": "game",
    "cardgames": "game",
    "physics": "physics",
    "viewer": "viewer",
    "tower.app": "app",
}
MAY_IMPORT = {
    "kit": {"kit"},
    "game": {"kit", "game"},
    "physics": {"physics"},
    "viewer": {"kit", "game", "physics", "viewer"},
    "app": {"kit", "game", "physics", "viewer", "app"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The project modules a source file imports (the longest known module each import names)."""
    tree = ast.parse(path.read_text(), str(path))
    out = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from a.b import c`: c may be a module of a.b or a name in it
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
    return out


def layer(module: str) -> str:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    src = sources()
    modules = set(src)
    return {m: imports_of(p, modules) - {m} for m, p in src.items()}


def test_every_import_points_down(graph):
    wrong = [f"{m} ({layer(m)}) imports {d} ({layer(d)})" for m, deps in sorted(graph.items()) for d in sorted(deps)
             if layer(d) not in MAY_IMPORT[layer(m)]]
    assert not wrong, "\n".join(wrong)


def test_games_do_not_import_each_other(graph):
    """A game imports the kit, its own package and the card games' shared helpers (plain modules directly in
    cardgames/), never another game."""
    src = sources()

    def game_of(module: str) -> str:
        if src[module].parent == ROOT / "cardgames" and src[module].name != "__init__.py":
            return "shared"
        parts = module.split(".")
        return ".".join(parts[:2])

    wrong = [f"{m} imports {d}" for m, deps in graph.items() if layer(m) == "game" for d in deps
             if layer(d) == "game" and game_of(d) not in (game_of(m), "shared") and d != "cardgames"]
    assert not wrong, "\n".join(wrong)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph, or None (depth-first search with colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_cycles(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def game_name_decisions(path: Path, names: set[str]) -> list[str]:
    """Places where code decides by a game's name: a comparison with a game name (`==`, `!=`, `in (...)`), a
    dict keyed by game names, or a literal list of several game names."""
    tree = ast.parse(path.read_text(), str(path))

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(named(e) for e in node.elts)
        return False

    found = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Compare):
            hit = any(named(n) for n in [node.left, *node.comparators])
        elif isinstance(node, ast.Dict):
            hit = sum(named(k) for k in node.keys if k is not None) >= 2
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            hit = sum(isinstance(e, ast.Constant) and e.value in names for e in node.elts) >= 2
        elif isinstance(node, ast.MatchValue):
            hit = named(node.value)
        if hit:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_code_outside_the_registry_decides_by_a_game_name():
    names = set(game_names())
    registry = ROOT / "tower" / "games" / "registry.py"
    found = [hit for p in sources().values() if p != registry for hit in game_name_decisions(p, names)]
    assert not found, "decisions by game name (ask a GameState trait instead):\n" + "\n".join(found)


def test_the_name_check_sees_a_decision_by_name(tmp_path):
    probe = ROOT / "tests" / "_probe_name_check.py"
    try:
        probe.write_text('def f(state):\n    return state.name == "diabolo"\n')
        assert game_name_decisions(probe, set(game_names())) == ["tests/_probe_name_check.py:2"]
    finally:
        probe.unlink()


def test_the_kit_names_no_game():
    """The game kit refers to no game by name, except the registry's table (the one list of games)."""
    names = set(game_names())
    kit = [p for m, p in sources().items() if layer(m) == "kit" and p.name != "registry.py"]
    found = []
    for p in kit:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                found.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert not found, "\n".join(found)


def test_the_lab_and_the_server_import_no_command_module(graph):
    """The command line sits on top: the lab and the server read files and words through the modules below it
    (tower/climbers/build.py reads builds, tower/app/verdict_words.py words a verdict), never a command's."""
    wrong = [f"{m} imports {d}" for m, deps in sorted(graph.items())
             if m.startswith(("tower.app.serve", "tower.app.lab")) for d in sorted(deps)
             if d.startswith("tower.app.commands")]
    assert not wrong, "\n".join(wrong)
