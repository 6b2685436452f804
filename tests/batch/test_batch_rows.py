"""Result lines, encoded where the sample was scored: the same text as `json`, fewer steps."""

from __future__ import annotations

import json

import pytest

from rewardkit.batch import SampleResult, _rows
from rewardkit.compose._traps import ScaleWatch
from rewardkit.core._outcome import Outcome

ROWS = [
    {"id": 'é\n"', "line": 1, "reward": None, "valid": False, "judges": {"a": None}, "error": "x"},
    {"id": 3, "line": 2, "group": "g\u2028", "reward": 0.1 + 0.2, "valid": True, "judges": {}},
]


@pytest.mark.parametrize("c_encoder", [True, False])
def test_a_line_is_what_json_writes(c_encoder: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not c_encoder:  # a Python without json's C accelerator
        monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    dumps = _rows._line_encoder()
    for row in ROWS:
        assert dumps(row) == json.JSONEncoder(ensure_ascii=False).encode(row)


def test_a_line_carries_its_counts() -> None:
    outcomes = (
        Outcome(name="a", status="scored", value=0.0, raw=0.0),
        Outcome(name="b", status="scored", value=1.0, raw=1.0),
        Outcome(name="c", status="error", error="boom"),
    )
    result = SampleResult(reward=0.0, outcomes=outcomes, duration_s=0.5)
    text, line, reward, error, no_value, zero, seconds, sent = _rows.encode(("s", 7, None), result)
    assert json.loads(text) == {
        "id": "s",
        "line": 7,
        "reward": 0.0,
        "valid": True,
        "judges": {"a": 0.0, "b": 1.0, "c": None},
    }
    assert (line, reward, error, no_value, zero, seconds, sent) == (
        7,
        0.0,
        None,
        ("c",),
        True,
        0.5,
        (),
    )


def test_outcomes_travel_only_when_the_watch_sees_a_number_off_its_scale() -> None:
    off = SampleResult(
        reward=0.0, outcomes=(Outcome(name="q", status="scored", value=0.0, raw=0.8),)
    )
    on = SampleResult(reward=1.0, outcomes=(Outcome(name="q", status="scored", value=1.0, raw=5),))
    watch = ScaleWatch("eval.yaml", ["q"])
    assert _rows.encode(("a", 1, None), on, watch)[7] == ()
    assert _rows.encode(("b", 2, None), off, watch)[7] == off.outcomes
    assert _rows.encode(("c", 3, None), off, watch)[7] == ()  # once per chunk's watch
    assert _rows.encode(("d", 4, None), off)[7] == ()  # none watched


@pytest.mark.parametrize("ident", ['é\n"\u2028', 3, "plain"])
@pytest.mark.parametrize("reward", [0.0, 0.1 + 0.2, 1.0, 1e-300])
def test_a_one_judge_result_writes_the_line_its_outcomes_would(ident: str | int, reward: float):
    from rewardkit.batch._result import judged

    lazy = judged(reward, 'j"ü', 1.5, 0.25)
    eager = SampleResult(
        reward=reward,
        outcomes=(Outcome(name='j"ü', status="scored", value=reward, raw=reward),),
        rewards={"reward": reward},
        duration_s=0.25,
    )
    assert _rows.encode((ident, 4, None), lazy) == _rows.encode((ident, 4, None), eager)
    assert _rows.encode((ident, 4, "g"), lazy) == _rows.encode((ident, 4, "g"), eager)
