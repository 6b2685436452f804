"""An LLM judge reads each workspace file once, however many criteria and samples name it."""

from __future__ import annotations

import asyncio
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, Reply

from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import JudgeRun
from rewardkit.harbor._judge_config import load_definition
from rewardkit.judges import _inputs
from rewardkit.judges._llm import LLMJudge
from rewardkit.models import ModelClient

CRITERIA = 100
SAMPLES = 3


def test_a_file_named_by_every_criterion_of_every_sample_is_read_once(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    criteria = (
        f'\n[[criterion]]\ndescription = "Criterion {i}?"\nfiles = ["main.py"]\n'
        for i in range(CRITERIA)
    )
    head = f'[judge]\njudge = "openai/test-model"\nmode = "individual"\nsamples = {SAMPLES}\n'
    errors: list[ConfigError] = []
    definition = load_definition(
        tmp_path / "quality.toml", tomllib.loads(head + "".join(criteria)), errors
    )
    assert errors == []
    reads: list[Path] = []
    real = _inputs.read_bytes

    def read_bytes(workspace: Path, path: Path, **kwargs: Any) -> bytes:
        reads.append(path)
        return real(workspace, path, **kwargs)

    monkeypatch.setattr(_inputs, "read_bytes", read_bytes)
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.respond_with(lambda body: Reply(json.dumps({"score": "yes", "reasoning": "ok"})))

    async def main() -> JudgeRun:
        async with ModelClient(max_concurrent=32) as client:
            return await LLMJudge(definition=definition).evaluate(ws, client)

    run = asyncio.run(main())
    assert [o.value for o in run.outcomes] == [1.0] * CRITERIA
    assert server.count == CRITERIA * SAMPLES
    assert all("print('hello')" in json.dumps(body["messages"]) for body in server.requests)
    assert reads == [ws.resolve() / "main.py"]
