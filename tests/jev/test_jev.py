"""The JEV judge against a fake `typesafe_sdk` module injected into `sys.modules`."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk

RUBRIC = """
[[criterion]]
name = "style"
description = "How clean is the style?"
type = "rubric"
levels = ["Messy", "Fair", "Clean"]
"""


class _Timeout(Exception):
    pass


class FakeSdk:
    """What the fake SDK was asked, and the answers it gives (`script`, by call order)."""

    def __init__(self) -> None:
        self.inits: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.closed = 0
        self.script: list[Any] = []
        self.active = 0
        self.peak = 0

    def module(self) -> types.ModuleType:
        sdk = self
        mod = types.ModuleType("typesafe_sdk")

        class Noul:
            def __init__(self, *, instructions: str) -> None:
                self.kind, self.instructions = "noul", instructions

        class Score:
            def __init__(self, *, instructions: str, criteria: list[str]) -> None:
                self.kind, self.instructions, self.criteria = "score", instructions, criteria

        class Client:
            def __init__(self, **kw: Any) -> None:
                sdk.inits.append(kw)

            async def system_one(self, state: str, questions: dict[str, Any], **kw: Any) -> Any:
                n = len(sdk.calls)
                sdk.calls.append({"state": state, "questions": questions, **kw})
                sdk.active += 1
                sdk.peak = max(sdk.peak, sdk.active)
                await asyncio.sleep(0.01)
                sdk.active -= 1
                step = sdk.script[min(n, len(sdk.script) - 1)] if sdk.script else {}
                if isinstance(step, BaseException):
                    raise step
                return _response(questions, step)

            async def aclose(self) -> None:
                sdk.closed += 1

        mod.Noul = Noul  # type: ignore[attr-defined]
        mod.Score = Score  # type: ignore[attr-defined]
        mod.AsyncTypeSafeClient = Client  # type: ignore[attr-defined]
        mod.TypeSafeAPITimeoutError = _Timeout  # type: ignore[attr-defined]
        return mod


def _response(questions: dict[str, Any], step: dict[str, Any]) -> Any:
    answers: dict[str, Any] = {}
    for name, q in questions.items():
        if name in step.get("missing", ()):
            continue
        if q.kind == "noul":
            answers[name] = types.SimpleNamespace(type="noul", noul=step.get("noul", 0.9))
        else:
            answers[name] = types.SimpleNamespace(type="score", score=step.get("score", 2))
    response = types.SimpleNamespace(answers=answers, model="fake-jev")
    response.model_dump_json = lambda: json.dumps({"answers": sorted(answers)})
    return response


@pytest.fixture
def sdk(monkeypatch: pytest.MonkeyPatch) -> FakeSdk:
    fake = FakeSdk()
    monkeypatch.setitem(sys.modules, "typesafe_sdk", fake.module())
    monkeypatch.setenv("TYPESAFE_API_KEY", "ts-test-key-0123456789")
    return fake


def toml(extra: str = "", criteria: str = RUBRIC) -> str:
    return (
        f'[judge]\njudge = "jev"\nfiles = ["main.py"]\ntimeout = 12\n{extra}\n'
        f'[[criterion]]\nname = "correct"\ndescription = "Is the code correct?"\n{criteria}'
    )


def run(tmp_path: Path, text: str) -> tuple[dict[str, float], dict[str, Any]]:
    tests_dir, ws = tmp_path / "tests", tmp_path / "ws"
    tests_dir.mkdir(exist_ok=True)
    ws.mkdir(exist_ok=True)
    (ws / "main.py").write_text("print('hello')\n")
    (ws / "ref.py").write_text("print('reference')\n")
    (tests_dir / "quality.toml").write_text(text)
    out = tmp_path / "out" / "reward.json"
    rewards = rk.run(tests_dir, workspace=ws, output=out)
    details = json.loads(out.with_name("reward-details.json").read_text())
    return rewards, details["reward"]


def test_batched_is_one_call_with_files_reference_and_questions(
    sdk: FakeSdk, tmp_path: Path
) -> None:
    sdk.script = [{"noul": 0.7, "score": 1}]
    rewards, detail = run(tmp_path, toml('reference = "ref.py"\nmodel = "jev-1"'))
    assert detail["kind"] == "jev"
    correct, style = detail["criteria"]
    assert (correct["value"], correct["raw"]) == (1.0, 0.7)
    assert (style["value"], style["raw"]) == (0.5, 1)
    assert rewards == {"reward": 0.75}
    (call,) = sdk.calls
    assert "print('hello')" in call["state"]
    assert "print('reference')" in call["state"]
    assert call["model"] == "jev-1"
    assert call["questions"]["correct"].instructions == "Is the code correct?"
    assert call["questions"]["style"].criteria == ["Messy", "Fair", "Clean"]
    assert sdk.inits == [{"timeout": 12.0}]
    assert sdk.closed == 1
    assert detail["judge_output"] == json.dumps({"answers": ["correct", "style"]})


def test_noul_below_half_fails_and_negate_flips(sdk: FakeSdk, tmp_path: Path) -> None:
    sdk.script = [{"noul": 0.49, "score": 0}]
    criteria = '\n[[criterion]]\nname = "bad"\ndescription = "Is it bad?"\nnegate = true\n'
    _, detail = run(tmp_path, toml(criteria=criteria))
    assert [(c["name"], c["value"]) for c in detail["criteria"]] == [("correct", 0.0), ("bad", 1.0)]


def test_individual_is_one_call_per_criterion_concurrently(sdk: FakeSdk, tmp_path: Path) -> None:
    _, detail = run(tmp_path, toml('mode = "individual"'))
    assert sorted(tuple(c["questions"]) for c in sdk.calls) == [("correct",), ("style",)]
    assert sdk.peak == 2
    assert [c["value"] for c in detail["criteria"]] == [1.0, 1.0]


def test_samples_are_combined(sdk: FakeSdk, tmp_path: Path) -> None:
    sdk.script = [{"noul": 0.9, "score": 2}, {"noul": 0.1, "score": 0}, {"noul": 0.8, "score": 1}]
    _, detail = run(tmp_path, toml("samples = 3"))
    assert len(sdk.calls) == 3
    correct, style = detail["criteria"]
    assert correct["value"] == 1.0
    assert correct["samples"] == [0.9, 0.1, 0.8]
    assert style["value"] == 0.5
    assert style["agreement"] == pytest.approx(0.6667)


def test_a_missing_answer_is_an_error_for_that_criterion(sdk: FakeSdk, tmp_path: Path) -> None:
    sdk.script = [{"missing": ["style"]}]
    _, detail = run(tmp_path, toml())
    correct, style = detail["criteria"]
    assert correct["value"] == 1.0
    assert "no answer for 'style'" in style["error"]


def test_timeout_and_sdk_errors_are_outcomes(sdk: FakeSdk, tmp_path: Path) -> None:
    sdk.script = [_Timeout("slow")]
    _, detail = run(tmp_path, toml())
    assert all(c["error"] == "judge timed out after 12s" for c in detail["criteria"])
    sdk.calls.clear()
    sdk.script = [RuntimeError("HTTP 500 boom")]
    rewards, detail = run(tmp_path, toml())
    assert rewards == {"reward": 0.0}
    assert "the jev call failed: RuntimeError: HTTP 500 boom" in detail["criteria"][0]["error"]


def test_missing_key_makes_no_call(
    sdk: FakeSdk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TYPESAFE_API_KEY")
    _, detail = run(tmp_path, toml())
    assert "TYPESAFE_API_KEY" in detail["criteria"][0]["error"]
    assert sdk.calls == []
    assert sdk.inits == []


def test_missing_extra_names_the_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "typesafe_sdk", None)  # import raises ImportError
    monkeypatch.setenv("TYPESAFE_API_KEY", "k")
    rewards, detail = run(tmp_path, toml())
    assert rewards == {"reward": 0.0}
    assert "pip install 'rewardkit[jev]'" in detail["criteria"][0]["error"]


def test_media_input_is_a_clear_error(sdk: FakeSdk, tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "shot.png").write_bytes(b"\x89PNG\r\n")
    _, detail = run(tmp_path, toml().replace('"main.py"', '"shot.png"'))
    assert "only supports text input (shot.png is an image)" in detail["criteria"][0]["error"]
    assert sdk.calls == []


def test_outside_paths_are_a_note_not_a_read(sdk: FakeSdk, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("top secret")
    run(tmp_path, toml('reference = "../secret.txt"'))
    assert "top secret" not in sdk.calls[0]["state"]
    assert "[outside the workspace]" in sdk.calls[0]["state"]
