"""The package's layout: its modules import each other one way only (no cycle, lazy imports
inside functions included), each package only what its row of docs/design/layout.md allows,
read from the source, not from what one run happened to load."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import rewardkit

PACKAGE = Path(rewardkit.__file__).parent
MAP = PACKAGE.parents[1] / "docs" / "design" / "layout.md"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(tree: ast.AST, module: str, package: str) -> Iterator[str]:
    """Every rewardkit module named by an import in `tree`, at any depth; not those under
    `if TYPE_CHECKING:`, which never run."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _imported(ast.Module(body=node.orelse, type_ignores=[]), module, package)
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)  # a submodule, maybe
        yield from _imported(node, module, package)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {
            target
            for target in _imported(tree, name, package)
            if target in modules and target != name
        }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_imports_back_into_what_imports_it() -> None:
    graph = _graph()
    assert len(graph) > 200  # the whole package was read
    assert _cycles(graph) == []


def test_the_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _allowed() -> dict[str, set[str] | None]:
    """The table of docs/design/layout.md: each package and those it may import (None: any)."""
    rows = re.findall(r"^\| `(\w+)` \| .+ \| (.+) \|$", MAP.read_text(), re.M)
    return {
        package: None if may == "everything" else set(re.findall(r"`(\w+)`", may))
        for package, may in rows
    }


def _room(module: str) -> str:
    """The package of the table a module belongs to (`rewardkit`: the package's `__init__`)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "rewardkit"
    return "cli" if parts[1] == "__main__" else parts[1]


def test_each_package_imports_only_what_the_layout_map_allows() -> None:
    allowed = _allowed()
    graph = _graph()
    rooms = {_room(module) for module in graph}
    assert rooms == set(allowed), "every package has one row in docs/design/layout.md"
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if _room(target) != _room(module)
        and (may := allowed[_room(module)]) is not None
        and _room(target) not in may
    )
    assert wrong == [], "not in docs/design/layout.md's table:\n" + "\n".join(wrong)


def test_the_map_is_one_way() -> None:
    """No two packages of the table may import each other, even through others."""
    allowed = _allowed()
    graph = {room: may or set() for room, may in allowed.items()}  # cli's `everything`: the top
    assert _cycles(graph) == []


def test_a_module_over_350_lines_says_why() -> None:
    unexplained = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if len((text := path.read_text(encoding="utf-8")).splitlines()) > 350
        and "Over 350 lines: " not in (ast.get_docstring(ast.parse(text)) or "")
    )
    assert unexplained == [], f"split them, or give the reason in the docstring: {unexplained}"
