"""The harness's builtin judge library (and rewardkit's extras) for eval.yaml `builtin:`.

Each row cites the harness doc it comes from: `builtin-judges.md` is
`website/reference/builtin-judges.md`, `judges.md` is `website/reference/config/judges.md`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._suite import load_suite
from rewardkit.evalyaml.builtins import BUILTINS, lookup


def run(builtin: str, record: dict[str, Any], **arguments: Any) -> tuple[bool, str]:
    fn = lookup(builtin).fn
    assert fn is not None
    return fn(record, **arguments)


def read(*paths: str, subagent: bool = False, tool: str = "Read") -> dict[str, Any]:
    """One assistant event whose tool calls read `paths` (the harness's flat event shape)."""
    key = {"Read": "file_path", "Grep": "path"}[tool]
    event: dict[str, Any] = {
        "type": "assistant",
        "text": "",
        "tools": [{"name": tool, "input": {key: p}} for p in paths],
    }
    if subagent:
        event["parent_tool_use_id"] = "toolu_1"
    return event


DOCS = {"annotations": {"expected_files": ["docs/setup.md", "docs/api.md"]}}

CASES = [
    # builtin-judges.md, efficiency/cost_budget: passes at or below the budget (default 1.0)
    ("cost_budget", {"cost_usd": 0.99}, {}, True, "within budget $1.00"),
    ("cost_budget", {"cost_usd": 1.0}, {}, True, "within"),
    ("cost_budget", {"cost_usd": 1.01}, {}, False, "exceeds budget $1.00"),
    ("cost_budget", {"cost_usd": 0.3}, {"max_cost_usd": 0.25}, False, "$0.30 exceeds"),
    ("cost_budget", {"cost_usd": 0}, {"max_cost_usd": 0}, True, "within"),
    # builtin-judges.md: missing cost data fails with "No cost data available"
    ("cost_budget", {}, {}, False, "No cost data available"),
    ("cost_budget", {"cost_usd": None}, {}, False, "No cost data available"),
    # builtin-judges.md, process/consulted_docs: coverage of annotations.expected_files
    ("consulted_docs", {**DOCS, "events": [read("/home/u/p/docs/setup.md")]}, {}, False, "1 of 2"),
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md")]},
        {"min_coverage": 0.5},
        True,
        "50%",
    ),
    (
        "consulted_docs",
        {**DOCS, "events": [read("/r/docs/setup.md", "/r/docs/api.md")]},
        {},
        True,
        "2 of 2",
    ),
    # ... suffix matches whole path components: final-report.md is not report.md
    (
        "consulted_docs",
        {"annotations": {"expected_files": ["report.md"]}, "events": [read("/r/final-report.md")]},
        {},
        False,
        "0 of 1",
    ),
    # ... a repo-relative read matches an absolute expected path, and the other way round
    (
        "consulted_docs",
        {"annotations": {"expected_files": ["/r/docs/a.md"]}, "events": [read("docs/a.md")]},
        {},
        True,
        "1 of 1",
    ),
    # ... match: exact needs the same string; basename compares file names only
    (
        "consulted_docs",
        {**DOCS, "events": [read("/r/docs/setup.md", "/r/docs/api.md")]},
        {"match": "exact"},
        False,
        "0 of 2",
    ),
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md", "docs/api.md")]},
        {"match": "exact"},
        True,
        "2 of 2",
    ),
    (
        "consulted_docs",
        {**DOCS, "events": [read("/x/setup.md", "/y/api.md")]},
        {"match": "basename"},
        True,
        "2 of 2",
    ),
    # ... include_subagents (default true) counts reads made by subagents
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md", "docs/api.md", subagent=True)]},
        {},
        True,
        "2 of 2",
    ),
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md", "docs/api.md", subagent=True)]},
        {"include_subagents": False},
        False,
        "0 of 2",
    ),
    # ... include_grep (default true) counts Grep calls on a path
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md", "docs/api.md", tool="Grep")]},
        {},
        True,
        "2 of 2",
    ),
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/setup.md", "docs/api.md", tool="Grep")]},
        {"include_grep": False},
        False,
        "0 of 2",
    ),
    # ... preloaded_files count as consulted without a Read
    (
        "consulted_docs",
        {**DOCS, "events": [read("docs/api.md")]},
        {"preloaded_files": ["docs/setup.md"]},
        True,
        "1 of them preloaded",
    ),
    # ... no expected_files: passes, nothing to verify
    ("consulted_docs", {"annotations": {}}, {}, True, "nothing to verify"),
    # ... events of any shape (untrusted) are tolerated
    (
        "consulted_docs",
        {
            **DOCS,
            "events": [
                1,
                {"type": "assistant", "tools": "x"},
                {"type": "assistant", "tools": [{"name": "Read", "input": 3}]},
            ],
        },
        {},
        False,
        "0 of 2",
    ),
    # builtin-judges.md, process/tool_call_validation: no tool call has an error result
    ("tool_call_validation", {"tool_calls": []}, {}, True, "no tool calls"),
    ("tool_call_validation", {}, {}, True, "no tool calls"),
    (
        "tool_call_validation",
        {"tool_calls": [{"name": "a", "result": "ok"}, {"name": "b", "output": {"x": 1}}]},
        {},
        True,
        "all 2 tool calls",
    ),
    (
        "tool_call_validation",
        {"tool_calls": [{"name": "a", "result": {"error": "denied"}}]},
        {},
        False,
        "a: denied",
    ),
    (
        "tool_call_validation",
        {"tool_calls": [{"name": "b", "output": "Error: no such file"}]},
        {},
        False,
        "b: Error: no such file",
    ),
    # ... only the first ~50 characters of a string result are searched for "error"
    (
        "tool_call_validation",
        {"tool_calls": [{"name": "c", "result": "x" * 60 + " error"}]},
        {},
        True,
        "all 1",
    ),
    ("tool_call_validation", {"tool_calls": [{"result": {"error": ""}}]}, {}, True, "all 1"),
    # rewardkit's own: turn_budget, tool_called, tool_not_called
    ("turn_budget", {"num_turns": 3}, {"max_turns": 3}, True, "3 turns"),
    ("turn_budget", {"num_turns": 4}, {"max_turns": 3}, False, "4 turns"),
    (
        "tool_called",
        {"tool_calls": [{"name": "s"}, {"name": "s"}]},
        {"name": "s", "min_count": 2},
        True,
        "2 time(s)",
    ),
    ("tool_not_called", {"tool_calls": [{"name": "bash"}]}, {"name": "bash"}, False, "1 time(s)"),
    # answer_matches: the same text, or the same math answer (math_reward's engine)
    ("answer_matches", {"stdout": " 42\n", "annotations": {"expected": "42"}}, {}, True, "matches"),
    (
        "answer_matches",
        {"stdout": "Half: \\boxed{0.5}", "annotations": {"expected": "\\frac{1}{2}"}},
        {},
        True,
        "same math",
    ),
    (
        "answer_matches",
        {"stdout": "x \\in [0, 9)", "annotations": {"expected": "(0, 9)"}},
        {},
        False,
        "differs",
    ),
    (
        "answer_matches",
        {"stdout": "Paris", "annotations": {"expected": "Lyon"}},
        {},
        False,
        "differs",
    ),
]


@pytest.mark.parametrize(("name", "record", "arguments", "passed", "reason"), CASES)
def test_python_builtins(
    name: str, record: dict[str, Any], arguments: dict[str, Any], passed: bool, reason: str
) -> None:
    value, rationale = run(name, record, **arguments)
    assert value is passed
    assert reason in rationale


def test_a_cost_that_is_no_number_is_an_error() -> None:
    with pytest.raises(TypeError, match=r"cost_usd is 'free', not a number"):
        run("cost_budget", {"cost_usd": "free"})


def test_the_catalog_names_and_categories() -> None:
    # builtin-judges.md: the catalog (efficiency, process, quality, safety), plus ours
    harness = {
        "efficiency/cost_budget": "python",
        "process/consulted_docs": "python",
        "process/tool_call_validation": "python",
        "quality/output_completeness": "llm",
        "safety/no_harmful_content": "llm",
    }
    found = {b.qualified: "python" if b.fn else "llm" for b in BUILTINS.values()}
    assert harness.items() <= found.items()
    assert {q for q, kind in found.items() if kind == "llm"} == {
        "quality/output_completeness",
        "safety/no_harmful_content",
    }
    for builtin in BUILTINS.values():
        assert (builtin.prompt is not None) == (builtin.fn is None)
        assert builtin.prompt is None or builtin.prompt.is_file()


# --- at load ------------------------------------------------------------------------------


def load(tmp_path: Path, judge: str) -> Any:
    path = tmp_path / "eval.yaml"
    path.write_text(f"judges:\n  - {judge}\n")
    return load_suite(path)


@pytest.mark.parametrize(
    "judge",
    [
        # builtin-judges.md: a bare stem, or category-qualified
        "{name: b, builtin: cost_budget, arguments: {max_cost_usd: 0.5}}",
        "{name: b, builtin: efficiency/cost_budget}",
        "{name: b, builtin: process/consulted_docs, arguments: {min_coverage: 1, match: basename, include_subagents: false, include_grep: false, preloaded_files: [CLAUDE.md]}}",
        "{name: b, builtin: tool_call_validation}",
        # judges.md: a Python builtin may be numeric and take a score_range
        "{name: b, builtin: cost_budget, score_range: [0, 1]}",
    ],
)
def test_python_builtins_load(tmp_path: Path, judge: str) -> None:
    (loaded,) = load(tmp_path, judge).judges
    assert loaded.kind == "builtin"
    assert loaded.fn is lookup(loaded.fn.__name__).fn


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        # builtin-judges.md: a typo or a wrong category fails at load, listing every category/name
        (
            "{name: b, builtin: cost_budgit}",
            "unknown builtin 'cost_budgit'. Did you mean 'cost_budget'?",
        ),
        (
            "{name: b, builtin: quality/cost_budget}",
            "'cost_budget' is in category 'efficiency', not 'quality'",
        ),
        (
            "{name: b, builtin: efficiency/token_budget}",
            "unknown builtin 'efficiency/token_budget'",
        ),
        ("{name: b, builtin: 3}", "builtin: must be a builtin's name"),
        # an unknown argument names it and the accepted ones (ours: the harness ignores it)
        (
            "{name: b, builtin: cost_budget, arguments: {max_usd: 1}}",
            "has no argument 'max_usd'. Did you mean 'max_cost_usd'? Accepted: max_cost_usd.",
        ),
        ("{name: b, builtin: tool_call_validation, arguments: {strict: true}}", "Accepted: none."),
        (
            "{name: b, builtin: consulted_docs, arguments: {match: fuzzy}}",
            "'match' must be one of 'suffix', 'exact', 'basename' (got 'fuzzy')",
        ),
        (
            "{name: b, builtin: consulted_docs, arguments: {min_coverage: high}}",
            "'min_coverage' must be a number (got 'high')",
        ),
        (
            "{name: b, builtin: consulted_docs, arguments: {preloaded_files: CLAUDE.md}}",
            "'preloaded_files' must be a list of strings",
        ),
        (
            "{name: b, builtin: consulted_docs, arguments: {include_grep: 1}}",
            "'include_grep' must be true or false",
        ),
        (
            "{name: b, builtin: output_completeness, arguments: {strictness: extreme}}",
            "'strictness' must be one of 'low', 'medium', 'high'",
        ),
        (
            "{name: b, builtin: no_harmful_content, arguments: {categories: PII}}",
            "'categories' must be a list of strings",
        ),
        ("{name: b, builtin: tool_called}", "needs the argument 'name' (a string)"),
        # judges.md: an LLM builtin with a score_range or a non-bool feedback_type is rejected
        (
            "{name: b, builtin: output_completeness, score_range: [1, 5]}",
            "score_range: builtin 'output_completeness' is a pass/fail LLM judge",
        ),
        (
            "{name: b, builtin: safety/no_harmful_content, feedback_type: int}",
            "feedback_type: builtin 'safety/no_harmful_content' is a pass/fail LLM judge",
        ),
    ],
)
def test_bad_builtins_fail_at_load(tmp_path: Path, judge: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, judge)
    text = str(caught.value)
    assert message in text
    assert "eval.yaml: judges[0] 'b'" in text
    if "unknown builtin" in message:
        assert "Available: efficiency/cost_budget, " in text
        assert "quality/output_completeness, safety/no_harmful_content." in text


def test_an_llm_builtin_loads_as_a_pass_fail_llm_judge(tmp_path: Path) -> None:
    # builtin-judges.md: an LLM builtin is a Jinja prompt scored pass/fail by the judge model
    suite = load(tmp_path, "{name: b, builtin: quality/output_completeness, feedback_type: bool}")
    (judge,) = suite.judges
    assert (judge.kind, judge.feedback_type, judge.score_range) == ("llm", "bool", None)
    assert judge.config["prompt_file"] == str(lookup("output_completeness").prompt)
