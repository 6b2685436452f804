"""A model server's answer is untrusted bytes: bombs, endless bodies, drips, silence, redirects.

Each case runs a real `rewardkit` on a tests dir with a programmatic check and an LLM judge
(`timeout = 2`) whose endpoint misbehaves. reward.json is written in bounded time and memory,
the check keeps its score, and the judge's criterion is an error or a timeout saying why.
Before the bounds, a 0.4 MB gzip answer took the run to 4.6 GB and 39 s (decoded whole, six
times), a 1 GiB body to 5.3 GB, and a redirect was retried six times.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.hostile import _model_server as server
from tests.hostile._measure import Measured, measure, rewardkit_cmd

TIMEOUT = 2
JUDGE = f"""
[judge]
judge = "openai/test-model"
files = ["main.py"]
timeout = {TIMEOUT}

[[criterion]]
description = "Is the code correct?"
"""
CAP = "model answer exceeded 16777216 bytes"
MAX_RSS_MB = 150
"""A run holds at most one capped answer (16 MiB) on top of its ≈50 MB."""


def grade(tmp_path: Path, url: str) -> tuple[Measured, dict[str, Any]]:
    """Run rewardkit against the endpoint at `url`; the measure and the judge's criterion."""
    tests, ws = tmp_path / "tests", tmp_path / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    (tests / "checks.py").write_text("import rewardkit as rk\nrk.file_exists('main.py')\n")
    (tests / "quality.toml").write_text(JUDGE)
    env = {**os.environ, "REWARDKIT_API_BASE": url, "OPENAI_API_KEY": "sk-test-0123456789"}
    env.pop("REWARDKIT_TRANSPORT", None)
    out = tmp_path / "out" / "reward.json"
    done = measure(rewardkit_cmd(tests, "--workspace", ws, "--output", out), limit_s=30, env=env)
    assert done.returncode == 3, done.stderr  # 3: some criterion did not score
    assert json.loads(out.read_text()) == {"reward": 0.5}  # the check's 1.0, the judge's 0
    components = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    by_name = {c["name"]: c["detail"]["criteria"] for c in components["components"]}
    assert [(c["status"], c["value"]) for c in by_name["checks"]] == [("scored", True)]
    [judged] = by_name["quality"]
    return done, judged


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(lambda: server.body(server.gzip_zeros(400), gzip=True), id="gzip-bomb-0.4MB"),
        pytest.param(lambda: server.endless(gzip=True), id="endless-gzip"),
        pytest.param(lambda: server.huge(1 << 30), id="1GiB-body"),
        pytest.param(server.endless, id="endless-body"),
    ],
)
def test_a_huge_answer_is_cut_at_the_cap(
    tmp_path: Path, answer: Callable[[], server.Answer]
) -> None:
    with server.ModelServer(answer()) as endpoint:
        done, judged = grade(tmp_path, endpoint.url)
        assert endpoint.count == 1  # refused, not retried
    assert judged["status"] == "error"
    assert CAP in judged["error"]
    assert done.peak_rss_mb < MAX_RSS_MB
    assert done.wall_s < 8


@pytest.mark.parametrize("interval", [1.0, 0.01], ids=["1-byte-per-s", "100-bytes-per-s"])
def test_a_dripped_answer_ends_at_the_judges_timeout(tmp_path: Path, interval: float) -> None:
    with server.ModelServer(server.drip(interval)) as endpoint:
        done, judged = grade(tmp_path, endpoint.url)
        assert endpoint.count == 1  # the timeout covers retries too: none is left
    assert judged["status"] == "timeout"
    assert f"no reply within the {TIMEOUT}s timeout" in judged["error"]
    assert done.wall_s < TIMEOUT + 10  # start-up and the check, ≈0.5 s here (more under load)


def test_a_server_that_never_answers_ends_at_the_judges_timeout(tmp_path: Path) -> None:
    with server.ModelServer(server.silent()) as endpoint:
        done, judged = grade(tmp_path, endpoint.url)
        assert endpoint.count == 1
    assert judged["status"] == "timeout"
    assert done.wall_s < TIMEOUT + 10


def test_a_redirect_is_refused_not_followed(tmp_path: Path) -> None:
    with server.ModelServer(server.body(b"{}")) as elsewhere:
        target = f"{elsewhere.url}/chat/completions"
        with server.ModelServer(server.redirect(target)) as endpoint:
            _, judged = grade(tmp_path, endpoint.url)
            assert endpoint.count == 1
        assert elsewhere.count == 0  # neither the prompt nor the key went there
    assert judged["status"] == "error"
    assert f"the endpoint redirected (HTTP 307) to '{target}'" in judged["error"]
