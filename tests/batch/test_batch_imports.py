"""`rewardkit.batch` imports point one way: no module imports one that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

import rewardkit.batch

PACKAGE = Path(rewardkit.batch.__file__).parent


def _imports(path: Path) -> set[str]:
    """The batch modules `path` imports at run time (anywhere but under `TYPE_CHECKING`)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and id(node) not in typing_only:
            module = node.module or ""
            if module.startswith("rewardkit.batch."):
                found.add(module.split(".")[2])
    return found - {path.stem}


def test_batch_has_no_import_cycle() -> None:
    graph = {path.stem: _imports(path) for path in PACKAGE.glob("_*.py")}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
    assert len(graph) > 10  # the modules were found
