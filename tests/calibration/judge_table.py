"""A judge whose agreement with the labels is known: the local chat server of `tests/llm/`
answers each request from a table the test controls, keyed by the item id in the output.
(A module of its own, not conftest.py: test modules import it by a name no other test
directory uses.)"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def _chat_server() -> ModuleType:
    """`tests/llm/server.py`, loaded under a name of its own (putting `tests/llm` on `sys.path`
    would make its conftest.py shadow this directory's)."""
    name = "calibration_chat_server"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "llm" / "server.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        assert spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_server = _chat_server()
KEY: str = _server.KEY
ChatServer = _server.ChatServer
Reply = _server.Reply
ok = _server.ok

__all__ = ["BOOL", "KEY", "SCORE", "ChatServer", "Judge", "write_labels", "write_suite"]

Answer = Callable[[int, str, int], Any]
"""`(item, the judged text, sample index) -> score`: the rigged judge."""

_ITEM = re.compile(r"item=(\d+)")


def user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "\n".join(p["text"] for p in content)


def submission(body: dict[str, Any]) -> str:
    """The judged text: what the prompt shows inside its <submission> fence."""
    text = user_text(body)
    return text[text.find("<submission>") :]


class Judge:
    """Answers every chat request with `answer(item, submission, sample)`."""

    def __init__(self, server: ChatServer) -> None:
        self.server = server
        self.answer: Answer = lambda item, text, sample: True
        self.toml = False
        """Answer as a judge TOML's binary criterion does ("yes"/"no"), not eval.yaml's."""
        self._seen: Counter[str] = Counter()
        server.respond_with(self._respond)

    def _respond(self, body: dict[str, Any]) -> Reply:  # called under the server's lock
        text = submission(body)
        sample = self._seen[text]
        self._seen[text] += 1
        found = _ITEM.search(text)
        assert found, text
        score = self.answer(int(found[1]), text, sample)
        if self.toml:
            return ok(json.dumps({"score": "yes" if score else "no", "reasoning": "table"}))
        return ok(json.dumps({"score": score, "rationale": "table"}))


def write_suite(directory: Path, *judges: str) -> Path:
    """An eval.yaml with `judges` (each a YAML mapping's lines, indented by 4)."""
    path = directory / "eval.yaml"
    path.write_text("name: calibration\njudges:\n" + "".join(judges))
    return path


BOOL = (
    "  - name: correct\n    prompt: 'Is the answer correct?'\n"
    "    feedback_type: bool\n    model: openai/test-model\n"
)
SCORE = (
    "  - name: quality\n    prompt: 'Rate the answer.'\n"
    "    score_range: [1, 5]\n    model: openai/test-model\n"
)


def write_labels(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path
