"""eval.yaml LLM judges' `api_base` and `supports` (as a judge TOML's `supports`), against the
local chat server, and a `step:` LLM judge's prompt."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, ok, schema_of

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._score import score_cases
from rewardkit.evalyaml._suite import load_suite

DEAD = "http://127.0.0.1:9/v1"
"""An endpoint nothing answers on (the discard port)."""


def write(tmp_path: Path, judges: str, **files: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text("judges:\n" + textwrap.indent(textwrap.dedent(judges), "  "))
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "answer.txt").write_text("forty-two")
    for rel, text in files.items():
        (case / rel.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (case / rel.replace("__", "/")).write_text(text)
    return path


def run(path: Path) -> dict[str, Any]:
    (result,) = score_cases(load_suite(path), [path.parent / "cases" / "c1"])
    return {o.name: o for o in result.outcomes}


@pytest.fixture
def answering(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    """The server, answering every judge `true`; the key it takes in OPENAI_API_KEY."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.respond_with(lambda body: ok(json.dumps({"score": True, "rationale": "fine"})))
    return server


def test_an_llm_judge_calls_its_api_base(
    tmp_path: Path, answering: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_API_BASE", DEAD)  # the judge's own endpoint wins
    path = write(
        tmp_path,
        f"""\
        - name: local
          prompt: "Is it right?"
          model: local-model
          api_base: {answering.url}
          feedback_type: bool
        """,
    )
    got = run(path)
    assert (got["local"].status, got["local"].raw) == ("scored", True), got["local"].error
    (body,) = answering.requests
    assert body["model"] == "local-model"
    assert "response_format" not in body  # a model the table does not know: prompt only


def test_supports_overrides_what_the_model_is_taken_to_accept(
    tmp_path: Path, answering: ChatServer
) -> None:
    path = write(
        tmp_path,
        f"""\
        - name: structured
          prompt: "Is it right?"
          model: local-model
          api_base: {answering.url}
          feedback_type: bool
          supports: {{response_format: true}}
        """,
    )
    assert run(path)["structured"].status == "scored"
    (body,) = answering.requests
    assert schema_of(body)["properties"]["score"] == {"type": "boolean"}


def test_without_api_base_the_environment_endpoint_is_used(
    tmp_path: Path, answering: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_API_BASE", answering.url)
    path = write(tmp_path, "- {name: j, prompt: 'Ok?', model: local-model, feedback_type: bool}\n")
    assert run(path)["j"].status == "scored"
    assert answering.count == 1


def test_a_step_judge_is_asked_about_its_step(tmp_path: Path, answering: ChatServer) -> None:
    path = write(
        tmp_path,
        f"""\
        - name: refine_quality
          step: refine
          prompt: "Grade this: {{{{ conversation }}}}"
          model: local-model
          api_base: {answering.url}
          feedback_type: bool
        """,
        **{"stdout.log": "VERDICT of the review", "steps__refine__stdout.log": "DRAFT of refine"},
    )
    text = path.read_text()
    path.write_text("execution: {steps: [{id: refine, skill: a}, {id: review, skill: b}]}\n" + text)
    assert run(path)["refine_quality"].status == "scored"
    (body,) = answering.requests
    prompt = json.dumps(body["messages"])
    assert "DRAFT of refine" in prompt
    assert "VERDICT" not in prompt


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("api_base: ftp://host/v1", "api_base: must be the http(s) URL of an OpenAI-compatible"),
        ("api_base: 8000", "api_base: must be the http(s) URL"),
        ("api_base: 'http://'", "api_base: must be the http(s) URL"),
        ("api_base: 'http://a b/v1'", "api_base: must be the http(s) URL"),
        ("supports: {json: true}", "supports.json: unknown key 'json'; valid: images,"),
        ("supports: {images: 'yes'}", "supports.images: must be true or false (got 'yes')"),
        ("supports: [images]", "supports: must be a mapping of true/false"),
    ],
)
def test_bad_values_are_load_errors_naming_the_key(
    tmp_path: Path, fields: str, message: str
) -> None:
    path = write(tmp_path, f"- {{name: j, prompt: 'Ok?', feedback_type: bool, {fields}}}\n")
    with pytest.raises(ConfigError) as info:
        load_suite(path)
    assert f"eval.yaml: judges[0] 'j' (line 2).{message}" in str(info.value)


@pytest.mark.parametrize("judge", ["check: 'return True'", "builtin: efficiency/cost_budget"])
def test_only_llm_judges_take_them(tmp_path: Path, judge: str) -> None:
    path = write(tmp_path, f"- {{name: j, {judge}, api_base: 'http://h/v1'}}\n")
    with pytest.raises(ConfigError) as info:
        load_suite(path)
    assert "judges[0] 'j' (line 2).api_base: only LLM judges take it" in str(info.value)


def test_the_pairwise_comparison_refuses_them(tmp_path: Path) -> None:
    path = write(tmp_path, "- {name: pairwise, prompt: 'A or B?', supports: {images: false}}\n")
    with pytest.raises(ConfigError) as info:
        load_suite(path)
    message = "judges[0] 'pairwise'.supports: the comparison does not take it (it uses"
    assert message in str(info.value)


def test_the_command_says_it_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "- {name: j, prompt: 'Ok?', api_base: 'localhost:8000'}\n")
    done = subprocess.run(
        [sys.executable, "-m", "rewardkit", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"rewardkit check: error: {path}: judges[0] 'j' (line 2).api_base: must be the http(s) "
        "URL of an OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (got "
        "'localhost:8000')"
    ]
