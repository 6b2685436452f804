"""The eval.yaml snippets in the harness's own documentation, each ready to load in a project.

A snippet is a fenced `yaml` block of `agent-eval-harness/website/**.md` that parses to a
mapping. `stage` writes it as `eval.yaml` into a project directory with stub files for the
prompt files, context files and code modules it names, so that loading it tests the
configuration, not the presence of the author's files.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```ya?ml[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
_CANDIDATES = ("REWARDKIT_HARNESS_DOCS",)
_DEFAULTS = (
    Path("/work/shared/reference/agent-eval-harness"),
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "agent-eval-harness",
)


@dataclass(frozen=True)
class Snippet:
    file: str
    """The doc file, relative to the harness docs root."""
    index: int
    """Which yaml block of the file (0-based)."""
    text: str

    @property
    def id(self) -> str:
        digest = hashlib.sha1(self.text.encode()).hexdigest()[:8]
        return f"{self.file}#{self.index}@{digest}"


def docs_root() -> Path | None:
    """The harness docs (`REWARDKIT_HARNESS_DOCS`, else the shared reference), or None."""
    for name in _CANDIDATES:
        if os.environ.get(name):
            return Path(os.environ[name])
    return next((p for p in _DEFAULTS if (p / "website").is_dir()), None)


def snippets(root: Path) -> Iterator[Snippet]:
    """Every yaml block of the docs that parses to a mapping."""
    for path in sorted((root / "website").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for index, match in enumerate(_FENCE.finditer(text)):
            body = _dedent(match.group("body"), match.group("indent"))
            try:
                data = yaml.safe_load(body)
            except yaml.YAMLError:
                continue
            if isinstance(data, dict):
                yield Snippet(str(path.relative_to(root)), index, body)


def _dedent(body: str, indent: str) -> str:
    lines = body.splitlines(keepends=True)
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)


def stage(snippet: Snippet, project: Path) -> Path:
    """Write the snippet as `project/eval.yaml` plus stubs of the files it names."""
    data = yaml.safe_load(snippet.text)
    for judge in data.get("judges") or []:
        if isinstance(judge, dict):
            _stub_judge(judge, project)
    config = project / "eval.yaml"
    config.write_text(snippet.text, encoding="utf-8")
    return config


def _stub_judge(judge: dict[str, Any], project: Path) -> None:
    files = [judge.get("prompt_file")]
    context = judge.get("context")
    files += context if isinstance(context, list) else [context]
    for name in files:
        if isinstance(name, str) and name and not Path(name).is_absolute() and ".." not in name:
            _write(project / name, "Judge the work.\n\n{{ conversation }}\n")
    module, function = judge.get("module"), judge.get("function")
    if isinstance(module, str) and isinstance(function, str):
        parts = module.split(".")
        for i in range(1, len(parts)):
            _write(project.joinpath(*parts[:i], "__init__.py"), "")
        source = f"def {function}(outputs, **kwargs):\n    return True, 'stub'\n"
        _write(project.joinpath(*parts[:-1], parts[-1] + ".py"), source, append=True)


def _write(path: Path, text: str, append: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if append and path.exists():
        text = path.read_text() + text
    path.write_text(text, encoding="utf-8")
