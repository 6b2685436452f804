"""Differential corpus: our `rewardkit DIR` writes the `reward.json` Harbor RewardKit 0.2.3 wrote.

Each case under tests/corpus/ holds a Harbor tests dir, a workspace and Harbor's recorded
`expected/reward.json` (tests/corpus/record.py explains how to re-record). The case is
copied to a temporary directory, so nothing in the repository can change, and our CLI runs
on the copy exactly as record.py ran Harbor's.

Equality rule. For `exact` cases (the default) the parsed JSON must have the same keys in
the same order and every value must equal Harbor's rounded to 4 dp; when none of Harbor's
values has more than 4 decimals the text must also be byte-identical. The one tolerated
difference is deliberate: in a nested layout Harbor writes a root-level Python file's
dimension unrounded (0.3333333333333333), while we round every key to 4 dp. A case with
`exact = false` in case.toml documents, in `why`, a deliberate difference; only its keys
are compared.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _load_recorder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_corpus_record", CORPUS / "record.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


record = _load_recorder()
CASES: list[Path] = record.cases()


def _run_ours(case: Path, tmp: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    tests, workspace = record.stage(case, tmp)
    out = tmp / "out" / "reward.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardkit",
            str(tests),
            "--workspace",
            str(workspace),
            "--output",
            str(out),
        ],
        cwd=workspace,
        env=record.run_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc, out


def _has_more_than_4dp(value: float) -> bool:
    return round(value, 4) != value


def test_corpus_is_complete() -> None:
    assert len(CASES) >= 20
    for case in CASES:
        config = record.case_config(case)
        assert config.get("description"), f"{case.name}/case.toml needs a description"
        if config.get("exact", True) is False:
            assert config.get("why"), f"{case.name}/case.toml: exact = false needs a why"
        assert (case / "expected" / "reward.json").is_file(), (
            f"{case.name}: no expected/reward.json; record it with tests/corpus/record.py"
        )
        assert (case / "tests").is_dir()
        assert (case / "workspace").is_dir()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_matches_harbor(case: Path, tmp_path: Path) -> None:
    config = record.case_config(case)
    expected_text = (case / "expected" / "reward.json").read_text()
    expected = json.loads(expected_text)

    proc, out = _run_ours(case, tmp_path)
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    got_text = out.read_text()
    got = json.loads(got_text)

    context = f"{case.name}: {config['description']}\nexpected {expected_text}\ngot      {got_text}"
    assert list(got) == list(expected), context
    for key, value in got.items():
        assert isinstance(value, float), f"{key}={value!r}\n{context}"
        assert math.isfinite(value), f"{key}={value!r}\n{context}"

    if config.get("exact", True):
        for key, value in expected.items():
            assert got[key] == round(value, 4), f"key {key!r}\n{context}"
        if not any(_has_more_than_4dp(value) for value in expected.values()):
            assert got_text == expected_text, f"not byte-identical\n{context}"

    details = json.loads((out.parent / "reward-details.json").read_text())
    missing = [key for key in record.detailed_keys(case, expected) if key not in details]
    assert not missing, f"reward-details.json lacks {missing}\n{context}"
