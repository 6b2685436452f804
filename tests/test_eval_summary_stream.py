"""summary.json/.yaml built without holding the cases: tallies fed a case at a time, `per_case`
streamed in batches, case names kept compact. Each must equal the all-at-once computation."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from rewardkit.core._stats import BOOTSTRAP_MAX_N, estimate
from rewardkit.evalyaml._case_names import CaseNames
from rewardkit.evalyaml._suite import load_suite
from rewardkit.evalyaml._summary import summarize, write_summary

SUITE = """\
judges:
  - {name: ok, check: 'return True'}
  - {name: num, check: 'return 3', score_range: [0, 10]}
  - {name: mixed, check: 'return True'}
thresholds:
  ok: {min_pass_rate: 0.5}
"""
ODD_IDS = ["yes", "123", "a b: c", "ü-ñ", "x" * 200, "- dash", "'quoted'"]


def entries_of(cases: int, seed: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """`cases` per-case entries: a boolean judge, a numeric one, and one of mixed kinds, each
    sometimes skipped or errored."""
    rng = random.Random(seed)
    found = []
    for i in range(cases):
        status = rng.choice(["scored"] * 8 + ["skipped", "error"])
        scored = status == "scored"
        judges = {
            "ok": {"value": rng.random() < 0.7 if scored else None, "status": status,
                   "rationale": "why\nnot" if i % 3 else ""},
            "num": {"value": rng.choice([rng.randint(0, 10), rng.random() * 10]), "status": "scored",
                    "rationale": ""},
            "mixed": {"value": True if i % 2 else 0.5, "status": "scored", "rationale": ""},
        }  # fmt: skip
        if not scored:
            judges["ok"]["error" if status == "error" else "rationale"] = "no answer"
        case_id = ODD_IDS[i] if i < len(ODD_IDS) else f"case-{i:05d}"
        found.append((case_id, {"reward": rng.random(), "judges": judges}))
    return found


@pytest.mark.parametrize("cases", [0, 1, 300])  # 300: more than one batch
def test_the_streamed_files_equal_one_dump_of_the_whole_summary(tmp_path: Path, cases: int) -> None:
    (tmp_path / "eval.yaml").write_text(SUITE)
    suite = load_suite(tmp_path / "eval.yaml")
    entries = entries_of(cases)
    summary = summarize(suite, lambda: iter(entries), run_id="run-1")
    write_summary(tmp_path / "out", summary, lambda: iter(entries))
    whole: dict[str, Any] = {}
    for key, value in summary.items():
        whole[key] = value
        if key == "judges":
            whole["per_case"] = dict(entries)
    assert (tmp_path / "out" / "summary.json").read_text() == json.dumps(whole, indent=2)
    text = (tmp_path / "out" / "summary.yaml").read_text()
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    assert text == yaml.dump(whole, Dumper=dumper, sort_keys=False)
    assert yaml.safe_load(text) == json.loads(json.dumps(whole))


@pytest.mark.parametrize("cases", [40, BOOTSTRAP_MAX_N + 300])  # bootstrap; normal interval
def test_the_tallies_equal_the_statistics_of_every_value(tmp_path: Path, cases: int) -> None:
    (tmp_path / "eval.yaml").write_text(SUITE)
    entries = entries_of(cases, seed=cases)
    summary = summarize(load_suite(tmp_path / "eval.yaml"), lambda: iter(entries))
    for name in ("ok", "num"):
        judged = [entry["judges"][name] for _, entry in entries]
        scored = [j["value"] for j in judged if j["status"] == "scored"]
        values = scored if name == "ok" else [float(v) for v in scored]
        expected = {
            "mean": sum(values) / len(values),
            "pass_rate": sum(values) / len(values) if name == "ok" else None,
            "scored_cases": len(values),
            "errored_cases": sum(j["status"] == "error" for j in judged),
            "skipped_cases": sum(j["status"] == "skipped" for j in judged),
            **estimate(values).as_dict(),
        }
        assert summary["judges"][name] == expected
    assert summary["judges"]["mixed"]["mean"] is None
    assert summary["judges"]["mixed"]["ci_method"] == "none"
    rewards = estimate([entry["reward"] for _, entry in entries])
    assert summary["reward"] == {"cases": cases, "mean": rewards.mean, **rewards.as_dict()}
    assert summary["regressions"] == []


def test_case_names_sort_like_paths_and_are_found_by_bisection(tmp_path: Path) -> None:
    rng = random.Random(1)
    drawn = {"".join(rng.choices("ab-é 9.Z", k=rng.randint(1, 12))) for _ in range(9000)}
    names = [name for name in drawn if not name.startswith(".")]  # hidden: never a case
    compact = CaseNames(iter(names))
    assert list(compact) == sorted(names) == [p.name for p in sorted(tmp_path / n for n in names)]
    assert len(compact) == len(names)
    for name in rng.sample(names, 50):
        at = compact.index(name)
        assert at is not None
        assert compact[at] == name
    assert compact.index("not/a name") is None
    assert compact[-1] == max(names)
    with pytest.raises(IndexError):
        compact[len(names)]


def test_a_listing_keeps_visible_directories_only(tmp_path: Path) -> None:
    for name in ("b", "a", ".hidden"):
        (tmp_path / name).mkdir()
    (tmp_path / "file.txt").write_text("not a case")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert list(CaseNames.listed(tmp_path)) == ["a", "b", "link"]
