"""Output files: the published schemas, atomic writes, stale files removed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import rewardkit as rk
from rewardkit.harbor._reward_json import write_outputs

SCHEMAS = Path(__file__).parents[1] / "docs" / "schema"


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


def test_outputs_match_the_published_schemas(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "a/checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def boom(workspace):
                raise ValueError("x")

            @criterion
            def graded(workspace):
                return {"score": 0.5, "reasoning": "half", "confidence": 0.5, "model": "m"}

            rk.file_exists("f.txt")
            """,
            "b/one.py": "import rewardkit as rk\nrk.file_exists('f.txt')\n",
            "b/two.py": "import rewardkit as rk\nrk.file_exists('nope')\n",
            "b/reward.toml": "[[reward]]\naggregation = 'threshold'\nthreshold = 0.4\n",
            "quality.toml": "[judge]\njudge = 'openai/gpt-5'\n[[criterion]]\ndescription = 'Good?'\n",
            "reward.toml": "[[reward]]\nname = 'total'\n",
        },
        {"f.txt": "x"},
    )
    out = tmp_path / "out" / "reward.json"
    rewards = rk.run(tests, workspace=ws, output=out)
    assert rewards == {"a": 0.5, "b": 1.0, "quality": 0.0, "total": 0.5}
    jsonschema.validate(json.loads(out.read_text()), schema("reward.schema.json"))
    detail = json.loads(out.with_name("reward-details.json").read_text())
    jsonschema.validate(detail, schema("reward-details.schema.json"))
    assert detail["b"]["threshold"] == 0.4
    (judged,) = detail["quality"]["criteria"]
    assert detail["quality"]["kind"] == "llm"
    assert judged["status"] == "error"  # no API key: recorded, and the other scores are kept
    assert "OPENAI_API_KEY" in judged["error"]
    assert detail["quality"]["judge"]["model"] == "openai/gpt-5"


def test_criterion_detail_keys_keep_rewardkit_order(task, tmp_path: Path) -> None:
    tests, ws = task({"c.py": "import rewardkit as rk\nrk.file_exists('f.txt', weight=2)\n"})
    out = tmp_path / "reward.json"
    rk.run(tests, workspace=ws, output=out)
    detail = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    assert list(detail) == ["score", "criteria", "kind"]
    assert detail["criteria"][0]["weight"] == 2.0
    assert isinstance(detail["criteria"][0]["weight"], float)  # as RewardKit writes it
    assert list(detail["criteria"][0]) == [
        "name",
        "value",
        "raw",
        "weight",
        "description",
        "status",
        "duration_ms",
    ]


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "reward.json"
    write_outputs(out, {"reward": 0.5}, {"reward": {}})
    assert sorted(p.name for p in out.parent.iterdir()) == ["reward-details.json", "reward.json"]
    assert out.stat().st_mode & 0o777 == 0o644


def test_a_failed_write_keeps_the_previous_file(tmp_path: Path) -> None:
    out = tmp_path / "reward.json"
    out.write_text('{"reward": 1.0}')
    with pytest.raises(TypeError):
        write_outputs(out, {"reward": object()}, None)  # type: ignore[dict-item]
    assert out.read_text() == '{"reward": 1.0}'
    assert [p.name for p in tmp_path.iterdir()] == ["reward.json"]


def test_each_run_starts_by_removing_stale_outputs(task, tmp_path: Path) -> None:
    tests, ws = task({"c.py": "raise SystemExit('not a criteria file')\n"})
    out = tmp_path / "reward.json"
    out.with_name("reward-details.json").write_text("stale")
    out.write_text("stale")
    with pytest.raises(rk.ConfigError, match="failed to load"):
        rk.run(tests, workspace=ws, output=out)  # a config error: nothing is scored...
    assert not out.exists()  # ...and no stale reward from an earlier run is left behind
    assert not out.with_name("reward-details.json").exists()
