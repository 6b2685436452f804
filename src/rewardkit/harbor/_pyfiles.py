"""Load a tests directory's Python files: each runs once, in a fresh module, per run."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rewardkit.criteria import Check, Registry

__all__ = ["load_checks"]


def load_checks(path: Path, tests_root: Path, registry: Registry) -> tuple[Check, ...]:
    """Run `path` with `registry` active and return the checks it registered.

    The file's directory and the tests root are importable while it runs, so
    `from helpers import x` works; helper modules imported from the tests directory are
    forgotten afterwards, so another directory's `helpers.py` is never mistaken for this one.

    Raises:
        Exception: whatever the file raised.
    """
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    module_name = f"_rewardkit_check_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - .py files always have one
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    with _importable(path.parent, tests_root), registry.collecting() as checks:
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        finally:
            sys.modules.pop(module_name, None)
    return tuple(checks)


@contextmanager
def _importable(directory: Path, tests_root: Path) -> Iterator[None]:
    entries = list(dict.fromkeys([str(directory.resolve()), str(tests_root.resolve())]))
    before = set(sys.modules)
    sys.path[:0] = entries
    try:
        yield
    finally:
        for entry in entries:
            sys.path.remove(entry)
        root = tests_root.resolve()
        for name in set(sys.modules) - before:
            origin = getattr(sys.modules[name], "__file__", None)
            if origin and root in Path(origin).resolve().parents:
                del sys.modules[name]
