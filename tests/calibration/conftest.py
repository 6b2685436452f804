"""The `judge` fixture: a rigged judge on a local chat server (see `judge_table`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .judge_table import KEY, ChatServer, Judge


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[Judge]:
    with ChatServer() as server:
        monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield Judge(server)
