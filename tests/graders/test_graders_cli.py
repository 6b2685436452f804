"""`rewardkit score --config grader.json` and `rewardkit check grader.json`, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).with_name("cases")


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rewardkit", *map(str, args)]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=cwd, check=False, timeout=120
    )


def test_score_runs_a_multi_grader_on_a_jsonl(tmp_path: Path) -> None:
    rows = [
        {"id": "right", "prompt": "Capital?", "completion": "Paris", "ground_truth": "paris"},
        {"id": "wrong", "completion": "Lyon", "ground_truth": "paris"},
        {"id": "no-answer", "prompt": "Capital?"},
    ]
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "results.jsonl"
    done = cli("score", rollouts, "--config", CASES / "multi_weighted.json", "--out", out)
    assert done.returncode == 1, done.stderr  # one invalid sample: it has no completion
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert results["right"]["reward"] == 0.95  # 0.5 * 1 + 0.25 * 0.8 + 0.25 * 1
    assert results["right"]["judges"] == {"answer": 0.95}
    assert results["wrong"]["reward"] == 0.25  # only `short` holds
    assert results["no-answer"]["valid"] is False
    assert "no 'completion'" in results["no-answer"]["error"]


def test_score_reads_item_fields_from_metadata(tmp_path: Path) -> None:
    rollouts = tmp_path / "rollouts.jsonl"
    row = {"completion": "one two three four", "metadata": {"max_words": 2}}
    rollouts.write_text(json.dumps(row) + "\n")
    out = tmp_path / "results.jsonl"
    done = cli("score", rollouts, "--config", CASES / "python_length.json", "--out", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["reward"] == 0.5


def test_check_prints_the_plan_of_a_grader() -> None:
    done = cli("check", CASES / "multi_nested.json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("multi_nested.json: OpenAI grader 'outer' (multi)")
    assert lines[1] == "reward = format * content, clamped to [0, 1]"
    assert "      city: string_check, '{{ sample.output_json.city }}' eq '{{ item.city }}'" in lines


def test_check_json_gives_the_tree() -> None:
    done = cli("check", "--json", CASES / "score_model.json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["valid"] is True
    assert document["plan"] == {
        "name": "judge",
        "type": "score_model",
        "what": "openai/test-model scores in [0, 10]",
        "reward": "judge mapped from [0, 10] to [0, 1]",
    }


def test_check_an_invalid_grader_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "grader.json"
    grader = json.loads((CASES / "multi_min.json").read_text())
    grader["calculate_output"] = "min(exact, rogue)"
    path.write_text(json.dumps(grader))
    done = cli("check", path)
    assert done.returncode == 2
    assert done.stderr == (
        f"rewardkit check: error: {path}: calculate_output: unknown name 'rogue' (line 1, col 12); "
        "known names: 'exact', 'rouge'. Did you mean 'rouge'?\n"
    )


def test_importing_rewardkit_and_an_offline_grader_run_import_no_model_transport() -> None:
    code = (
        "import sys\nimport rewardkit as rk\n"
        "assert 'rewardkit.graders' not in sys.modules\n"
        f"with rk.load({str(CASES / 'multi_weighted.json')!r}) as scorer:\n"
        "    assert scorer.score({'completion': 'Paris', 'ground_truth': 'Paris'}).reward == 1.0\n"
        "loaded = [m for m in ('rewardkit.models', 'httpx', 'litellm') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
