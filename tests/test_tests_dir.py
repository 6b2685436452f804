"""Discovery of a Harbor tests directory: layouts, reward.toml, and every error it reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit import ConfigError, DiscoveryError
from rewardkit.harbor._tests_dir import discover

OK = "import rewardkit as rk\nrk.file_exists('f.txt')\n"
FAIL = "import rewardkit as rk\nrk.file_exists('missing.txt')\n"


def run(tests: Path, ws: Path, tmp_path: Path) -> dict[str, float]:
    return rk.run(tests, workspace=ws, output=tmp_path / "out" / "reward.json")


def errors_of(tests: Path) -> str:
    with pytest.raises(ConfigError) as info:
        discover(tests)
    return str(info.value)


# --- layouts ---------------------------------------------------------------------------


def test_flat_layout_is_one_reward_key_with_extra_keys(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "a.py": OK,
            "b.py": FAIL,
            "reward.toml": """
            [[reward]]
            name = "reward"
            weights = { a = 3.0 }

            [[reward]]
            name = "strict"
            aggregation = "all-pass"
            """,
        },
        {"f.txt": "x"},
    )
    assert run(tests, ws, tmp_path) == {"reward": 0.75, "strict": 0.0}


def test_nested_layout_keys_are_sorted_dimensions_then_extras(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "zeta/check.py": OK,
            "alpha/check.py": FAIL,
            "root_checks.py": OK,
            "reward.toml": '[[reward]]\nname = "total"\naggregation = "any-pass"\n',
        },
        {"f.txt": "x"},
    )
    result = run(tests, ws, tmp_path)
    assert list(result) == ["alpha", "root_checks", "zeta", "total"]
    assert result == {"alpha": 0.0, "root_checks": 1.0, "zeta": 1.0, "total": 1.0}


def test_every_key_is_rounded_to_four_places(task, tmp_path: Path) -> None:
    third = OK + "rk.file_exists('n1')\nrk.file_exists('n2')\n"
    tests, ws = task({"third.py": third, "d/check.py": third}, {"f.txt": "x"})
    assert run(tests, ws, tmp_path) == {"d": 0.3333, "third": 0.3333}


def test_nested_reward_table_weights_its_inputs(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "dim/a.py": OK,
            "dim/sub/b.py": FAIL,
            "dim/reward.toml": "[[reward]]\nweights = { a = 1.0, sub = 3.0 }\n",
        },
        {"f.txt": "x"},
    )
    assert run(tests, ws, tmp_path) == {"dim": 0.25}


def test_scoring_table_configures_one_file(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": OK + "rk.file_exists('missing')\n",
            "reward.toml": '[scoring.checks]\naggregation = "threshold"\nthreshold = 0.5\n',
        },
        {"f.txt": "x"},
    )
    assert run(tests, ws, tmp_path) == {"reward": 1.0}


def test_ignored_files_and_directories(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": OK,
            ".hidden.py": FAIL,  # Harbor runs hidden files; we skip them
            "helpers.py": "X = 1\n",  # registers nothing
            "notes.md": "# notes",
            "test.sh": "#!/bin/sh\n",
            ".cache/c.py": FAIL,
            "__pycache__/c.py": FAIL,
            "empty/README.md": "nothing to score",
        },
        {"f.txt": "x"},
    )
    assert run(tests, ws, tmp_path) == {"reward": 1.0}


def test_no_criteria_writes_an_empty_reward_and_no_details(task, tmp_path: Path) -> None:
    tests, ws = task({"helpers.py": "X = 1\n"})
    out = tmp_path / "out" / "reward.json"
    out.parent.mkdir()
    out.with_name("reward-details.json").write_text("{stale}")
    with pytest.warns(UserWarning, match="No criteria found"):
        assert rk.run(tests, workspace=ws, output=out) == {}
    assert out.read_text() == "{}"
    assert not out.with_name("reward-details.json").exists()


# --- better than Harbor --------------------------------------------------------------


def test_helper_modules_next_to_a_check_are_importable(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "common.py": "NAME = 'f.txt'\n",
            "a/helpers.py": "def target():\n    return 'f.txt'\n",
            "a/check.py": "import rewardkit as rk\nfrom helpers import target\n"
            "rk.file_exists(target())\n",
            "b/helpers.py": "def target():\n    return 'missing.txt'\n",
            "b/check.py": "import rewardkit as rk\nfrom helpers import target\n"
            "from common import NAME\nrk.file_exists(target())\nrk.file_exists(NAME)\n",
        },
        {"f.txt": "x"},
    )
    # b/ gets its own helpers.py, not the module a/ imported first.
    assert run(tests, ws, tmp_path) == {"a": 1.0, "b": 0.5}


def test_a_malformed_unrelated_toml_is_reported_not_fatal(task, tmp_path: Path) -> None:
    tests, ws = task({"checks.py": OK, "config.toml": "this is = = not toml"}, {"f.txt": "x"})
    with pytest.warns(UserWarning, match=r"config\.toml: skipped, not valid TOML"):
        assert run(tests, ws, tmp_path) == {"reward": 1.0}


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("raise RuntimeError('boom')\n", r"RuntimeError: boom \(b\.py:3\)"),
        ("def broken(:\n", "SyntaxError"),
        ("import sys\nsys.exit(0)\n", "SystemExit"),
    ],
)
def test_a_file_that_fails_to_load_is_a_config_error_before_anything_runs(
    task, tmp_path: Path, source: str, why: str
) -> None:
    tests, ws = task(
        {"a.py": OK, "b.py": "import rewardkit as rk\nrk.file_exists('f.txt')\n" + source},
        {"f.txt": "x"},
    )
    out = tmp_path / "out" / "reward.json"
    with pytest.raises(ConfigError, match=r"b\.py: failed to load: .*" + why):
        rk.run(tests, workspace=ws, output=out)
    assert not out.exists()


def test_a_symlink_loop_is_skipped(task, tmp_path: Path) -> None:
    tests, ws = task({"d/check.py": OK}, {"f.txt": "x"})
    os.symlink(tests / "d", tests / "d" / "again")
    with pytest.warns(UserWarning, match="symlink loop"):
        assert run(tests, ws, tmp_path) == {"d": 1.0}


# --- errors: every one names the file and the fix --------------------------------------


def test_missing_tests_dir(tmp_path: Path) -> None:
    with pytest.raises(
        DiscoveryError, match=r"nope: tests directory not found\. Pass the directory"
    ):
        discover(tmp_path / "nope")


def test_toml_syntax_error_in_reward_toml(task) -> None:
    tests, _ = task({"checks.py": OK, "reward.toml": "[[reward]\nname = 1\n"})
    assert errors_of(tests).startswith(f"{tests / 'reward.toml'}: invalid TOML:")


def test_toml_syntax_error_in_a_judge_toml_is_fatal(task) -> None:
    tests, _ = task({"judge.toml": '[judge]\njudge = "x"\n[[criterion]\n'})
    assert "judge.toml: invalid TOML" in errors_of(tests)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[scoring.zzz]\naggregation = 'all-pass'\n",
            "unknown programmatic scoring inputs: 'zzz'. [scoring.<stem>] must name a "
            "criterion-bearing Python file in this directory; found: 'checks'",
        ),
        ("[scoring]\naggregation = 'all_pass'\n", "[scoring.aggregation]: must be a table"),
        ("weight = 2.0\n", "unknown key 'weight'."),
        (
            "[scoring.checks]\naggregation = 'all-passs'\n",
            "[scoring.checks].aggregation: aggregation must be one of",
        ),
        ("[scoring.checks]\naggregaton = 'all-pass'\n", "Did you mean 'aggregation'?"),
        (
            "[scoring.checks]\nthreshold = 'high'\n",
            "[scoring.checks].threshold: must be a finite number",
        ),
        (
            "[[reward]]\nname = 'reward'\nweights = { checks = 'x' }\n",
            "[[reward]] 'reward'.weights.checks: must be a finite number (got 'x')",
        ),
        (
            "[[reward]]\nname = 'reward'\nweights = { checks = -1.0 }\n",
            "negative weight -1.0 needs aggregation = 'weighted-sum'",
        ),
        (
            "[[reward]]\nname = 'reward'\nweights = { other = 1.0 }\n",
            "unknown weights inputs: 'other'. Available inputs: 'checks'.",
        ),
        ("[[reward]]\naggregation = 'all-pass'\n", "each root [[reward]] table needs a 'name'"),
        ("[[reward]]\nname = 'x'\n[[reward]]\nname = 'x'\n", "duplicate [[reward]] name 'x'"),
    ],
)
def test_reward_toml_errors(task, toml: str, message: str) -> None:
    tests, _ = task({"checks.py": OK, "reward.toml": toml})
    text = errors_of(tests)
    assert str(tests / "reward.toml") in text
    assert message in text


def test_all_problems_are_reported_at_once(task) -> None:
    tests, _ = task({"checks.py": OK, "reward.toml": "weight = 1\n[scoring.nope]\n"})
    with pytest.raises(DiscoveryError) as info:
        discover(tests)
    assert len(info.value.errors) == 2
    assert str(info.value).startswith("2 configuration errors:")


def test_nested_reward_table_rules(task) -> None:
    tests, _ = task(
        {
            "d/check.py": OK,
            "d/reward.toml": "[[reward]]\nname = 'd'\n[[reward]]\n",
            "e/reward.toml": "[[reward]]\n",
        }
    )
    text = errors_of(tests)
    assert "declares more than one [[reward]]" in text
    assert "nested [[reward]] must omit 'name' (got 'd')" in text
    assert (
        f"{tests / 'e' / 'reward.toml'}: declares [[reward]] but the directory has no "
        "scoring inputs" in text
    )


def test_extra_key_may_not_collide_with_a_dimension(task) -> None:
    tests, _ = task({"d/check.py": OK, "reward.toml": "[[reward]]\nname = 'd'\n"})
    assert "[[reward]] name 'd' collides with a dimension" in errors_of(tests)


@pytest.mark.parametrize(
    ("files", "origins"),
    [
        ({"quality.py": OK, "quality/check.py": OK}, "quality.py and quality/"),
        (
            {"quality.py": OK, "quality.toml": "[[criterion]]\ndescription = 'ok?'\n"},
            "quality.py and quality.toml",
        ),
    ],
)
def test_name_clashes(task, files: dict[str, str], origins: str) -> None:
    tests, _ = task(files)
    assert f"ambiguous scoring input name 'quality' (from {origins})" in errors_of(tests)


def test_negative_criterion_weight_needs_weighted_sum(task, tmp_path: Path) -> None:
    tests, ws = task({"checks.py": "import rewardkit as rk\nrk.file_exists('f', weight=-1)\n"})
    assert "checks.py: criterion weights: negative weight -1.0 needs" in errors_of(tests)
    (tests / "reward.toml").write_text("[scoring.checks]\naggregation = 'weighted-sum'\n")
    assert run(tests, ws, tmp_path) == {"reward": 0.0}


def test_config_error_removes_stale_outputs_and_writes_nothing(task, tmp_path: Path) -> None:
    tests, ws = task({"checks.py": OK, "reward.toml": "weight = 1\n"})
    out = tmp_path / "out" / "reward.json"
    out.parent.mkdir()
    out.write_text('{"reward": 1.0}')
    with pytest.raises(ConfigError):
        rk.run(tests, workspace=ws, output=out)
    assert not out.exists()
