"""Judge TOMLs: every [judge] key, criteria, overrides, kinds, and every error located."""

from __future__ import annotations

import asyncio
import textwrap
import tomllib
from pathlib import Path

import pytest

from rewardkit import ConfigError
from rewardkit.harbor._judge_config import load_definition
from rewardkit.harbor._judge_toml import load_judge
from rewardkit.harbor._tests_dir import discover
from rewardkit.judges import (
    DEFAULT_JUDGE,
    Binary,
    JudgeDefinition,
    Likert,
    McpServer,
    Numeric,
    Rubric,
    TomlJudge,
)
from rewardkit.judges._agent import AgentJudge


def write(tmp_path: Path, text: str, name: str = "judge.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def load(tmp_path: Path, text: str) -> tuple[JudgeDefinition, list[str]]:
    path = write(tmp_path, text)
    errors: list[ConfigError] = []
    definition = load_definition(path, tomllib.loads(path.read_text()), errors)
    return definition, [str(e) for e in errors]


def ok(tmp_path: Path, text: str) -> JudgeDefinition:
    definition, errors = load(tmp_path, text)
    assert errors == []
    return definition


def one_error(tmp_path: Path, text: str) -> str:
    _, errors = load(tmp_path, text)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{tmp_path / 'judge.toml'}: ")
    return errors[0]


# --- a valid file ----------------------------------------------------------------------


def test_criteria_only_is_an_llm_judge_on_the_default_model(tmp_path: Path) -> None:
    d = ok(tmp_path, "[[criterion]]\ndescription = 'Good?'\n")
    assert (d.kind, d.judge, d.model) == ("llm", DEFAULT_JUDGE, DEFAULT_JUDGE)
    assert d.mode == "batched"
    assert d.timeout == 300
    assert d.samples == 1
    assert d.guard == "off"
    assert d.reasoning_effort is None  # never a default: non-reasoning models reject it
    (c,) = d.criteria
    assert (c.name, c.format, c.weight, c.files) == ("good", Binary(), 1.0, ())


def test_every_judge_key(tmp_path: Path) -> None:
    (tmp_path / "prompt.md").write_text("Grade this.\n{criteria}\n")
    d = ok(
        tmp_path,
        """
        [judge]
        judge = "claude-code"
        model = "anthropic/claude-sonnet-5"
        version = "v2.1.0"
        files = ["src", "README.md"]
        mode = "individual"
        timeout = 120
        reasoning_effort = "high"
        isolated = true
        cwd = "src"
        reference = "ref.py"
        atif-trajectory = "/logs/trajectory.json"
        weight = 2.5
        prompt_template = "prompt.md"
        samples = 3
        guard = "penalize"

        [[judge.mcp_servers]]
        name = "docs"
        command = "docs-mcp"
        args = ["--quiet"]

        [[judge.mcp_servers]]
        name = "web"
        transport = "http"
        url = "http://localhost:8000/mcp"
        allowed_tools = ["search"]

        [[criterion]]
        description = "Edge cases?"
        """,
    )
    assert d.kind == "agent"
    assert d.judge == "claude-code"
    assert d.model == "anthropic/claude-sonnet-5"
    assert d.version == "v2.1.0"
    assert d.files == ("src", "README.md")
    assert d.mode == "individual"
    assert (d.timeout, d.reasoning_effort, d.isolated, d.cwd) == (120, "high", True, "src")
    assert d.reference == "ref.py"
    assert d.atif_trajectory == "/logs/trajectory.json"
    assert (d.weight, d.samples, d.guard) == (2.5, 3, "penalize")
    assert d.prompt_template == tmp_path / "prompt.md"
    assert d.prompt_text == "Grade this.\n{criteria}\n"
    assert d.mcp_servers == (
        McpServer(name="docs", transport="stdio", command="docs-mcp", args=("--quiet",)),
        McpServer(
            name="web",
            transport="streamable-http",
            url="http://localhost:8000/mcp",
            allowed_tools=("search",),
        ),
    )
    assert d.details()["agent"] == "claude-code"
    assert d.details()["mcp_servers"][0]["transport"] == "stdio"


def test_atif_trajectory_underscore_alias(tmp_path: Path) -> None:
    d = ok(tmp_path, "[judge]\natif_trajectory = 't.json'\n[[criterion]]\ndescription = 'x'\n")
    assert d.atif_trajectory == "t.json"


def test_every_criterion_key_and_format(tmp_path: Path) -> None:
    d = ok(
        tmp_path,
        """
        [judge]
        mode = "individual"
        [[criterion]]
        description = "Is the code correct?"
        type = "binary"
        name = "correct"
        id = "R1"
        weight = 2
        files = ["main.py"]
        negate = true
        optional = true
        [[criterion]]
        description = "Readable?"
        type = "likert"
        points = 7
        [[criterion]]
        description = "Coverage?"
        type = "numeric"
        min = 0
        max = 100
        [[criterion]]
        description = "Quality?"
        type = "rubric"
        levels = ["Poor", "Fair", "Good"]
        """,
    )
    first, likert, numeric, rubric = d.criteria
    assert (first.name, first.id, first.weight, first.files) == ("correct", "R1", 2.0, ("main.py",))
    assert first.negate
    assert first.optional
    assert likert.format == Likert(points=7)
    assert numeric.format == Numeric(min=0, max=100)
    assert rubric.format == Rubric(levels=("Poor", "Fair", "Good"))


@pytest.mark.parametrize(
    ("annotations", "keys", "negate", "optional"),
    [
        ("{ type = 'Negative' }", "", True, False),
        ("{ importance = 'OPTIONAL-ish' }", "", False, True),
        ("{ type = 'negative', importance = 'optional' }", "negate = false\n", False, True),
        ("{ importance = 'optional' }", "optional = false\n", False, False),
        ("{ type = 'positive', importance = 'essential' }", "", False, False),
    ],
)
def test_annotations_set_negate_and_optional_unless_explicit(
    tmp_path: Path, annotations: str, keys: str, negate: bool, optional: bool
) -> None:
    d = ok(tmp_path, f"[[criterion]]\ndescription = 'x'\n{keys}annotations = {annotations}\n")
    assert (d.criteria[0].negate, d.criteria[0].optional) == (negate, optional)


# --- names -----------------------------------------------------------------------------


def test_default_names_are_slugs_and_an_empty_slug_is_numbered(tmp_path: Path) -> None:
    d = ok(
        tmp_path,
        """
        [[criterion]]
        description = "Is the code   correct?! Yes/No & more than forty characters"
        [[criterion]]
        description = "???"
        [[criterion]]
        description = "¿Qué?"
        """,
    )
    assert [c.name for c in d.criteria] == [
        "is_the_code_correct_yes_no_more_th",
        "criterion_1",
        "qu",
    ]


@pytest.mark.parametrize("name", ["a b", "", "x" * 65, "é"])
def test_invalid_explicit_names_name_the_file(tmp_path: Path, name: str) -> None:
    message = one_error(tmp_path, f"[[criterion]]\ndescription = 'x'\nname = {name!r}\n")
    assert f"[[criterion]] #1 ({name!r}).name: must be 1 to 64 letters" in message


def test_duplicate_names_in_batched_mode(tmp_path: Path) -> None:
    text = """
        {mode}
        [[criterion]]
        description = "Same thing"
        [[criterion]]
        description = "Same thing!"
        """
    message = one_error(tmp_path, text.format(mode=""))
    assert "[[criterion]] 'same_thing': duplicate criterion name" in message
    assert "'Same thing' and 'Same thing!'" in message
    individual = ok(tmp_path, text.format(mode="[judge]\nmode = 'individual'"))
    assert [c.name for c in individual.criteria] == ["same_thing", "same_thing"]


def test_per_criterion_files_need_individual_mode(tmp_path: Path) -> None:
    message = one_error(
        tmp_path, "[[criterion]]\ndescription = 'x'\nname = 'a'\nfiles = ['a.py']\n"
    )
    assert "[[criterion]] 'a': per-criterion 'files' needs" in message
    assert 'mode = "individual"' in message


# --- overrides and kinds ---------------------------------------------------------------


def test_environment_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = """
        [judge]
        judge = "openai/gpt-5"
        model = "ignored-for-llm"
        reasoning_effort = "low"
        [[criterion]]
        description = "x"
        """
    monkeypatch.setenv("REWARDKIT_REASONING_EFFORT", "high")
    d = ok(tmp_path, text)
    assert (d.kind, d.model, d.reasoning_effort) == ("llm", "openai/gpt-5", "high")
    monkeypatch.setenv("REWARDKIT_JUDGE", "codex")
    monkeypatch.setenv("REWARDKIT_MODEL", "openai/gpt-5-codex")
    d = ok(tmp_path, text)
    assert (d.kind, d.judge, d.model, d.reasoning_effort) == (
        "agent",
        "codex",
        "openai/gpt-5-codex",
        "high",
    )


def test_empty_environment_variables_do_not_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("REWARDKIT_JUDGE", "REWARDKIT_MODEL", "REWARDKIT_REASONING_EFFORT"):
        monkeypatch.setenv(key, "")
    d = ok(tmp_path, "[judge]\njudge = 'fx'\nmodel = 'm'\n[[criterion]]\ndescription = 'x'\n")
    assert (d.kind, d.judge, d.model, d.reasoning_effort) == ("agent", "fx", "m", None)


def test_jev_keeps_its_model_and_ignores_the_effort_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_REASONING_EFFORT", "high")
    d = ok(tmp_path, "[judge]\njudge = 'jev'\nmodel = 'jev-1'\n[[criterion]]\ndescription = 'x'\n")
    assert (d.kind, d.model, d.reasoning_effort) == ("jev", "jev-1", None)
    assert d.details() == {
        "model": "jev-1",
        "timeout": 300,
        "mode": "batched",
        "samples": 1,
        "files": [],
        "reference": None,
    }


def test_llm_details_keep_rewardkit_keys(tmp_path: Path) -> None:
    d = ok(tmp_path, "[judge]\njudge = 'openai/gpt-4o'\n[[criterion]]\ndescription = 'x'\n")
    assert list(d.details()) == [
        "model",
        "reasoning_effort",
        "timeout",
        "files",
        "atif_trajectory",
        "reference",
        "mode",
        "samples",
        "guard",
    ]


def test_rerouting_to_jev_names_the_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_JUDGE", "jev")
    message = one_error(tmp_path, "[[criterion]]\ndescription = 'x'\ntype = 'likert'\n")
    assert "judge 'jev' (from REWARDKIT_JUDGE / --judge)" in message
    assert "supports binary and rubric criteria, got likert" in message


# --- errors (each names the TOML file) ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'likret'\n",
            "[[criterion]] #1.type: unknown criterion type 'likret'. Did you mean 'likert'?",
        ),
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'likert'\npoints = 1\n",
            "[[criterion]] #1.points: likert points must be an integer of at least 2 (got 1)",
        ),
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'rubric'\nlevels = ['only']\n",
            "[[criterion]] #1.levels: a rubric needs 2 to 10 levels (got 1)",
        ),
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'rubric'\n",
            "[[criterion]] #1: a rubric needs levels",
        ),
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'numeric'\nmin = 5\nmax = 5\n",
            "[[criterion]] #1: numeric max must be greater than min",
        ),
        (
            "[[criterion]]\ndescription = 'x'\npoints = 7\n",
            "[[criterion]] #1.points: applies to type = 'likert' only",
        ),
        (
            "[[criterion]]\ndescription = 'x'\ntype = 'binary'\nlevels = ['a', 'b']\n",
            "[[criterion]] #1.levels: applies to type = 'rubric' only",
        ),
        ("[[criterion]]\nname = 'a'\n", "[[criterion]] #1 ('a'): needs a description"),
        ("[[criterion]]\ndescription = ' '\n", "[[criterion]] #1.description: must be a non-empty"),
        (
            "[[criterion]]\ndescription = 'x'\nwieght = 2\n",
            "[[criterion]] #1: unknown key 'wieght'. Did you mean 'weight'?",
        ),
        (
            "[[criterion]]\ndescription = 'x'\nweight = 'heavy'\n",
            ".weight: must be a finite number",
        ),
        ("[[criterion]]\ndescription = 'x'\nnegate = 'yes'\n", ".negate: must be true or false"),
        ("[[criterion]]\ndescription = 'x'\nannotations = 3\n", ".annotations: must be a table"),
        ("[[criterion]]\ndescription = 'x'\nfiles = 'a.py'\n", ".files: must be a list"),
        ("criterion = 3\n", "criterion: criteria must be written as [[criterion]] tables"),
        ("[judge]\njudge = 'openai/gpt-5'\n", "a judge needs at least one [[criterion]]"),
        ("judge = 'x'\n[[criterion]]\ndescription = 'x'\n", "[judge] must be a table"),
        (
            "[judge]\njudeg = 'x'\n[[criterion]]\ndescription = 'x'\n",
            "[judge]: unknown key 'judeg'. Did you mean 'judge'?",
        ),
        (
            "[judge]\nmode = 'single'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mode: must be one of 'batched', 'individual'",
        ),
        (
            "[judge]\ntimeout = 0\n[[criterion]]\ndescription = 'x'\n",
            "[judge].timeout: must be a positive number",
        ),
        (
            "[judge]\nsamples = 0\n[[criterion]]\ndescription = 'x'\n",
            "[judge].samples: must be an integer of at least 1",
        ),
        (
            "[judge]\nguard = 'on'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].guard: must be one of 'off', 'flag', 'penalize'",
        ),
        (
            "[judge]\nweight = inf\n[[criterion]]\ndescription = 'x'\n",
            "[judge].weight: must be a finite number",
        ),
        (
            "[judge]\nisolated = 1\n[[criterion]]\ndescription = 'x'\n",
            "[judge].isolated: must be true or false",
        ),
        (
            "[judge]\nfiles = 'a.py'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].files: must be a list of non-empty strings",
        ),
        (
            "[judge]\njudge = ''\n[[criterion]]\ndescription = 'x'\n",
            "[judge].judge: must be a non-empty string",
        ),
        (
            "[judge]\nreasoning_effort = 'extreme'\n[[criterion]]\ndescription = 'x'\n",
            "reasoning_effort 'extreme' is not supported by 'anthropic/claude-opus-5-5' judges",
        ),
        (
            "[judge]\njudge = 'claude-code'\nreasoning_effort = 'minimal'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].reasoning_effort: reasoning_effort 'minimal' is not supported by 'claude-code'",
        ),
        (
            "[judge]\njudge = 'codex'\nversion = 'latest'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].version: must be a semantic version of the agent CLI (got 'latest')",
        ),
        (
            "[judge]\natif-trajectory = 'a'\natif_trajectory = 'b'\n[[criterion]]\ndescription = 'x'\n",
            "set 'atif-trajectory' or its alias 'atif_trajectory', not both",
        ),
        (
            "[judge]\nguard = 'flag'\n[[criterion]]\ndescription = 'x'\nname = 'guard'\n",
            "[[criterion]] 'guard': the name 'guard' is reserved while [judge].guard is 'flag'",
        ),
        (
            "[judge]\nmcp_servers = {name = 'x'}\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers: must be a list of tables",
        ),
        (
            "[[judge.mcp_servers]]\nname = 'x'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers[0]: a sse MCP server needs a url",
        ),
        (
            "[[judge.mcp_servers]]\nname = 'x'\ntransport = 'stdio'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers[0]: a stdio MCP server needs a command",
        ),
        (
            "[[judge.mcp_servers]]\nname = 'x'\ntransport = 'pipe'\ncommand = 'c'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers[0].transport: must be one of 'stdio', 'sse', 'streamable-http', 'http'",
        ),
        (
            "[[judge.mcp_servers]]\ncommand = 'c'\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers[0]: needs a name",
        ),
        (
            "[[judge.mcp_servers]]\nname = 'x'\ncommand = 'c'\n[[judge.mcp_servers]]\nname = 'x'\ncommand = 'd'\n[[criterion]]\ndescription = 'x'\n",
            "MCP server name 'x' is used twice",
        ),
        (
            "[[judge.mcp_servers]]\nname = 'x'\ncommand = 'c'\nenv = {}\n[[criterion]]\ndescription = 'x'\n",
            "[judge].mcp_servers[0]: unknown key 'env'",
        ),
    ],
)
def test_errors_name_the_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in one_error(tmp_path, text)


@pytest.mark.parametrize(
    ("keys", "criterion", "expected"),
    [
        ("guard = 'flag'", "", "[judge].guard: the jev judge (judge 'jev') does not support guard"),
        (
            "reasoning_effort = 'low'",
            "",
            "[judge].reasoning_effort: the jev judge (judge 'jev') has no",
        ),
        (
            "atif-trajectory = 't.json'",
            "",
            "[judge]: the jev judge (judge 'jev') does not support 'atif-trajectory'",
        ),
        (
            "prompt_template = 'p.md'",
            "",
            "[judge].prompt_template: the jev judge (judge 'jev') does not take a custom prompt",
        ),
        (
            "",
            "type = 'numeric'",
            "[[criterion]] 'x': the jev judge (judge 'jev') supports binary and rubric criteria, got numeric",
        ),
    ],
)
def test_jev_restrictions(tmp_path: Path, keys: str, criterion: str, expected: str) -> None:
    (tmp_path / "p.md").write_text("{criteria}")
    message = one_error(
        tmp_path, f"[judge]\njudge = 'jev'\n{keys}\n[[criterion]]\ndescription = 'x'\n{criterion}\n"
    )
    assert expected in message
    assert "Remove it or use an LLM or agent judge" in message or "rubric" in message


def test_jev_accepts_binary_and_rubric(tmp_path: Path) -> None:
    d = ok(
        tmp_path,
        """
        [judge]
        judge = "jev"
        files = ["answer.md"]
        [[criterion]]
        description = "Does the answer address the task?"
        [[criterion]]
        description = "How complete?"
        type = "rubric"
        levels = ["Omits it", "Covers part", "Covers all"]
        """,
    )
    assert d.kind == "jev"
    assert len(d.criteria) == 2


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "p.md",
            "Grade it.",
            "[judge].prompt_template: p.md must contain the placeholder {criteria}",
        ),
        (
            "p.json",
            "{criteria}",
            "[judge].prompt_template: must be a .txt or .md file (got 'p.json')",
        ),
        (None, "", "[judge].prompt_template: "),
        ("p.txt", b"\xff\xfe{criteria}", "[judge].prompt_template: cannot read"),
    ],
)
def test_prompt_template_errors(
    tmp_path: Path, name: str | None, text: str | bytes, expected: str
) -> None:
    if name is not None:
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    message = one_error(
        tmp_path,
        f"[judge]\nprompt_template = {name or 'gone.md'!r}\n[[criterion]]\ndescription = 'x'\n",
    )
    assert expected in message
    if name is None:
        assert "not found; the path is relative to the judge TOML" in message


def test_prompt_template_is_relative_to_the_toml(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "mine.txt").write_text("Be strict. {criteria} {other}")
    d = ok(
        tmp_path,
        "[judge]\nprompt_template = 'prompts/mine.txt'\n[[criterion]]\ndescription = 'x'\n",
    )
    assert d.prompt_text == "Be strict. {criteria} {other}"


def test_all_problems_are_collected(tmp_path: Path) -> None:
    _, errors = load(
        tmp_path,
        """
        [judge]
        mode = "both"
        samples = 0
        [[criterion]]
        description = "x"
        type = "likert"
        points = 1
        [[criterion]]
        description = "y"
        type = "rubric"
        levels = ["one"]
        """,
    )
    assert len(errors) == 4
    assert all(e.startswith(str(tmp_path / "judge.toml")) for e in errors)


# --- the plan leaf ---------------------------------------------------------------------


def leaf_of(tmp_path: Path, text: str) -> tuple[object, list[str]]:
    path = write(tmp_path, text)
    errors: list[ConfigError] = []
    leaf = load_judge(path, tomllib.loads(path.read_text()), "judge", errors)
    return leaf, [str(e) for e in errors]


def test_leaf_kind_weight_scoring_and_placeholder_outcomes(tmp_path: Path) -> None:
    leaf, errors = leaf_of(
        tmp_path,
        """
        [judge]
        judge = "fx"
        weight = 3
        [[criterion]]
        description = "Edge cases?"
        id = "E1"
        optional = true
        [[criterion]]
        description = "Tests pass?"
        weight = 2
        [scoring]
        aggregation = "threshold"
        threshold = 0.7
        """,
    )
    assert errors == []
    assert (leaf.kind, leaf.weight, leaf.name) == ("agent", 3.0, "judge")  # type: ignore[attr-defined]
    assert (leaf.scoring.aggregation, leaf.scoring.threshold) == ("threshold", 0.7)  # type: ignore[attr-defined]
    assert isinstance(leaf.judge, AgentJudge)  # type: ignore[attr-defined]
    # an agent name without a registered backend runs the placeholder judge
    judge = TomlJudge(definition=leaf.judge.definition)  # type: ignore[attr-defined]
    assert [(c.name, c.weight) for c in judge.criteria] == [
        ("edge_cases", 1.0),
        ("tests_pass", 2.0),
    ]
    first, second = asyncio.run(judge.evaluate(tmp_path)).outcomes
    assert first.status == "error"
    assert first.extra == {"id": "E1", "optional": True}
    assert "agent judges ('fx' in judge.toml) are not available" in str(first.error)
    assert second.weight == 2.0
    assert second.description == "Tests pass?"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[judgee]\n[[criterion]]\ndescription = 'x'\n",
            "unknown table [judgee]. Did you mean 'judge'?",
        ),
        ("scoring = 1\n[[criterion]]\ndescription = 'x'\n", "[scoring] must be a table"),
        (
            "[[criterion]]\ndescription = 'x'\noptional = true\n[scoring]\naggregation = 'required-pass'\n",
            "[scoring].aggregation: aggregation = 'required-pass' needs at least one criterion",
        ),
        (
            "[[criterion]]\ndescription = 'x'\nweight = -1\n",
            "criterion weights: negative weight -1.0 needs aggregation = 'weighted-sum'",
        ),
        (
            "[[criterion]]\ndescription = 'x'\n[scoring]\naggregation = 'mean'\n",
            "[scoring].aggregation",
        ),
    ],
)
def test_leaf_errors(tmp_path: Path, text: str, expected: str) -> None:
    _, errors = leaf_of(tmp_path, text)
    assert len(errors) == 1, errors
    assert errors[0].startswith(str(tmp_path / "judge.toml"))
    assert expected in errors[0]


def test_negative_weights_with_weighted_sum(tmp_path: Path) -> None:
    _, errors = leaf_of(
        tmp_path,
        "[[criterion]]\ndescription = 'x'\nweight = -1\n[scoring]\naggregation = 'weighted-sum'\n",
    )
    assert errors == []


def test_discovery_reports_judge_errors_with_the_path(task) -> None:  # type: ignore[no-untyped-def]
    tests, _ = task(
        {
            "quality.toml": "[judge]\njudge = 'jev'\n[[criterion]]\ndescription = 'x'\ntype = 'likert'\npoints = 1\n"
        }
    )
    with pytest.raises(ConfigError) as info:
        discover(tests)
    assert f"{tests / 'quality.toml'}: [[criterion]] #1.points: likert points" in str(info.value)
