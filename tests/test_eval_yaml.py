"""Loading eval.yaml: judge kinds, common fields, and every error naming eval.yaml."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import pytest

from rewardkit import ConfigError
from rewardkit.evalyaml._suite import load_suite


def write(tmp_path: Path, text: str, files: dict[str, str] | None = None) -> Path:
    for rel, body in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(body))
    path = tmp_path / "eval.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path: Path) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. the numeric-default warning of a broken judge
        with pytest.raises(ConfigError) as info:
            load_suite(path)
    text = str(info.value)
    assert str(path) in text
    return text


def test_every_judge_kind_and_the_discriminator_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        name: demo
        runner: {type: claude-code}      # harness keys rewardkit does not use are accepted
        execution: {mode: case, prompt: "{{ input.prompt }}"}
        judges:
          - {name: a, builtin: stdout_contains, arguments: {text: hi}}
          - {name: b, check: "return True"}
          - {name: c, agent: {runner: claude-code}, prompt: "judge it", feedback_type: bool}
          - {name: d, llm_rubric: "Is it good?", score_range: [1, 5]}
          - {name: e, module: mine, function: score}
          - {name: f, check: "return 1", module: mine, function: score}
        """,
        {"mine.py": "def score(outputs):\n    return 1.0\n"},
    )
    suite = load_suite(path)
    assert [(j.name, j.kind) for j in suite.judges] == [
        ("a", "builtin"),
        ("b", "check"),
        ("c", "agent"),
        ("d", "llm"),
        ("e", "code"),
        ("f", "check"),
    ]
    assert suite.name == "demo"
    assert suite.judges[3].score_range == (1.0, 5.0)
    assert suite.judges[0].where == "eval.yaml:6"  # the text starts with a blank line


def test_a_judge_with_no_kind_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "judges:\n  - {name: x, description: nothing to run}\n")
    with pytest.warns(UserWarning, match="'x' has none of builtin"):
        assert load_suite(path).judges == ()


def test_unknown_keys_warn_with_a_suggestion(tmp_path: Path) -> None:
    path = write(
        tmp_path, "judgez: []\njudges:\n  - {name: x, check: 'return 1', scor_range: [0, 1]}\n"
    )
    with pytest.warns(UserWarning, match="is ignored") as caught:
        load_suite(path)
    messages = [str(w.message) for w in caught]
    assert any(
        "unknown top-level key 'judgez' is ignored. Did you mean 'judges'?" in m for m in messages
    )
    assert any(
        "unknown field 'scor_range' is ignored. Did you mean 'score_range'?" in m for m in messages
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("judges:\n  - name: a\n    check: [1\n", "invalid YAML"),
        ("judges: {a: 1}\n", "judges: must be a list of judges"),
        ("judges:\n  - {check: 'return 1'}\n", "needs a 'name'"),
        ("judges:\n  - {name: reward, check: 'return 1'}\n", "the name 'reward' is reserved"),
        (
            "judges:\n  - {name: a, check: 'return 1'}\n  - {name: a, check: 'return 2'}\n",
            "duplicate judge name",
        ),
        (
            "judges:\n  - {name: a, builtin: stdout_contains, check: 'return 1'}\n",
            "'builtin' cannot be combined with check",
        ),
        (
            "judges:\n  - {name: a, builtin: stdout_contain}\n",
            "unknown builtin 'stdout_contain'. Did you mean 'stdout_contains'?",
        ),
        (
            "judges:\n  - {name: a, builtin: stdout_contains}\n",
            "arguments: builtin 'stdout_contains' needs the argument 'text' (a string)",
        ),
        ("judges:\n  - {name: a, check: 'return (1'}\n", "invalid Python at snippet line 1"),
        (
            "judges:\n  - {name: a, module: nope_missing, function: f}\n",
            "cannot import module 'nope_missing'",
        ),
        (
            "judges:\n  - {name: a, module: mine, function: scor}\n",
            "module 'mine' has no function 'scor'. Did you mean 'score'?",
        ),
        ("judges:\n  - {name: a, module: mine}\n", "needs both 'module' and 'function'"),
        ("judges:\n  - {name: a, check: 'return 1', score_range: [5, 1]}\n", "score_range"),
        ("judges:\n  - {name: a, check: 'return 1', score_range: [0, .inf]}\n", "score_range"),
        (
            "judges:\n  - {name: a, check: 'return 1', samples: 0}\n",
            "samples: must be a positive integer",
        ),
        (
            "judges:\n  - {name: a, check: 'return 1', feedback_type: str}\n",
            "feedback_type: must be one of bool, int, float",
        ),
        ("judges:\n  - {name: a, check: 'return 1', if: 'outputs.__class__'}\n", "judges[0] 'a'"),
        (
            "judges:\n  - {name: a, check: 'return 1'}\nthresholds: {a: {min_man: 1}}\n",
            "Did you mean 'min_mean'?",
        ),
        ("judges:\n  - {name: a, check: 'return 1'}\nreward: {judge: zz}\n", "zz"),
        (
            "judges:\n  - {name: a, check: 'return 1'}\nreward: {judge: a, formula: weighted}\n",
            "judge",
        ),
        ("judges:\n  - {name: a, check: 'return 1'}\nreward: {weights: {a: many}}\n", "weights"),
        ("judges:\n  - {name: a, check: 'return 1'}\nreward: {formula: 'a ** 2'}\n", "**"),
        ("[1, 2]\n", "must be a mapping"),
        ("judges:\n  - {name: a, prompt_file: nope.md}\n", "prompt_file: file not found"),
        ("judges:\n  - {name: a, prompt: 3}\n", "prompt: must be a string"),
        ("judges:\n  - {name: a, agent: yes, prompt: x}\n", "agent: must be a mapping"),
    ],
)
def test_errors_name_eval_yaml_and_the_fix(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text, {"mine.py": "def score(outputs):\n    return 1.0\n"})
    assert message in error_of(path)


def test_yaml_errors_carry_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\njudges:\n  - name: a\n    check: [1\n")
    assert "line 5" in error_of(path) or "line 4" in error_of(path)


def test_missing_eval_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"eval\.yaml not found"):
        load_suite(tmp_path / "nope.yaml")


def test_numeric_llm_judge_without_range_warns(tmp_path: Path) -> None:
    path = write(tmp_path, "judges:\n  - {name: q, prompt: 'Rate it', feedback_type: int}\n")
    with pytest.warns(UserWarning, match="numeric llm judge without a score_range"):
        load_suite(path)


@pytest.mark.parametrize("libyaml", [True, False])
def test_a_deeply_nested_file_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, libyaml: bool
) -> None:
    """20,000 nested lists: one line naming the file, never a RecursionError traceback."""
    import yaml

    if not libyaml:  # PyYAML without libyaml parses in Python, recursively
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    path = write(tmp_path, "judges: " + "[" * 20_000 + "]" * 20_000 + "\n")
    message = error_of(path)
    assert "invalid YAML" in message  # error_of checks the file is named


def test_the_same_data_and_lines_with_either_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml

    path = write(
        tmp_path,
        "judges:\n  - name: a\n    check: return 1\n\n  - name: b\n    check: |\n      return 2\n",
    )
    fast = load_suite(path)
    monkeypatch.delattr(yaml, "CSafeLoader")
    slow = load_suite(path)
    places = [(j.name, j.where) for j in fast.judges]
    assert (
        places
        == [(j.name, j.where) for j in slow.judges]
        == [
            ("a", "eval.yaml:2"),
            ("b", "eval.yaml:5"),
        ]
    )
