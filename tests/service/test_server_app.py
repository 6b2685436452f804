"""`create_app` through FastAPI's `TestClient`: every endpoint and every error path."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serve_rewards import exact, fails_on_boom, has_ok_txt, slow

import rewardkit as rk
from rewardkit.server import create_app

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    scorer = rk.load([exact, slow], max_concurrent=2)
    with TestClient(create_app(scorer, max_body_bytes=2000, max_batch=3)) as c:
        yield c


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_score_one_sample(client: TestClient) -> None:
    sample = {"prompt": "2+2?", "completion": "4", "ground_truth": "4", "metadata": {"id": 7}}
    body = client.post("/score", json=sample).json()
    assert body["reward"] == 1.0
    assert body["valid"] is True
    assert body["judges"] == {"exact": 1.0, "slow": 1.0}
    assert body["error"] is None
    assert body["metadata"] == {"id": 7}


def test_score_wrong_answer_is_a_low_reward_not_an_error(client: TestClient) -> None:
    body = client.post("/score", json={"completion": "5", "ground_truth": "4"}).json()
    assert body["reward"] == 0.5
    assert body["judges"]["exact"] == 0.0


def test_a_sample_the_reward_cannot_read_is_invalid_with_a_reason(client: TestClient) -> None:
    response = client.post("/score", json={"prompt": "2+2?"})
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    assert body["reward"] is None
    assert "no 'messages' and no 'completion'" in body["error"]
    assert body["reason"] == body["error"]


def test_messages_are_accepted(client: TestClient) -> None:
    messages = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
    body = client.post("/score", json={"messages": messages, "ground_truth": "4"}).json()
    assert body["reward"] == 1.0


def test_batch_keeps_order(client: TestClient) -> None:
    samples = [{"completion": str(i), "ground_truth": "1", "metadata": {"id": i}} for i in range(3)]
    body = client.post("/score/batch", json={"samples": samples}).json()
    assert [r["metadata"]["id"] for r in body] == [0, 1, 2]
    assert [r["judges"]["exact"] for r in body] == [0.0, 1.0, 0.0]


def test_empty_batch(client: TestClient) -> None:
    assert client.post("/score/batch", json={"samples": []}).json() == []


def test_batch_over_the_limit_is_413(client: TestClient) -> None:
    response = client.post("/score/batch", json={"samples": [{"completion": "x"}] * 4})
    assert response.status_code == 413
    assert response.json()["detail"] == (
        "batch of 4 samples exceeds the limit of 3; split it into smaller batches"
    )


@pytest.mark.parametrize(
    ("path", "body", "field", "message"),
    [
        ("/score/batch", {}, "body.samples", "Field required"),
        ("/score/batch", {"samples": "x"}, "body.samples", "valid list"),
        ("/score", {"compltion": "4"}, "body.compltion", "Extra inputs are not permitted"),
        ("/score", {"messages": [{"content": "hi"}]}, "body.messages.0.role", "Field required"),
        ("/score", {"metadata": 3}, "body.metadata", "valid dictionary"),
        ("/validate", {}, "body.config", "Field required"),
    ],
)
def test_missing_or_invalid_fields_are_422_naming_the_field(
    client: TestClient, path: str, body: dict[str, Any], field: str, message: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith(f"{field}: ")
    assert message in detail
    assert response.json()["errors"][0]["field"] == field


def test_malformed_json_is_422(client: TestClient) -> None:
    response = client.post(
        "/score", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "JSON" in response.json()["detail"]


def test_body_over_the_limit_by_content_length_is_413(client: TestClient) -> None:
    response = client.post("/score", json={"completion": "x" * 3000})
    assert response.status_code == 413
    assert response.json() == {
        "detail": "request body exceeds the limit of 2000 bytes; send a smaller body (split a "
        "batch), or raise the server's --max-body-bytes"
    }


def test_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    chunks = iter([b'{"completion": "', b"x" * 1500, b"x" * 1500, b'"}'])
    response = client.post("/score", content=chunks, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert "2000 bytes" in response.json()["detail"]


def test_streamed_body_under_the_limit_is_scored(client: TestClient) -> None:
    chunks = iter([b'{"completion": ', b'"4", "ground_truth": "4"}'])
    response = client.post("/score", content=chunks, headers={"Content-Type": "application/json"})
    assert response.json()["reward"] == 1.0


class TestJsonDepth:
    @pytest.fixture(scope="class")
    @staticmethod
    def client() -> Iterator[TestClient]:
        with TestClient(create_app(rk.load([exact], max_concurrent=1), max_json_depth=5)) as c:
            yield c

    @pytest.mark.parametrize(
        "body",
        [
            b"[" * 100_000,
            b"[" * 100_000 + b"]" * 100_000,
            b'{"a": ' * 100_000,
            b'{"completion": "4", "metadata": {"a": [[[[]]]]}}',
        ],
        ids=["unclosed", "closed", "objects", "one-too-deep"],
    )
    def test_deeply_nested_json_is_400(self, client: TestClient, body: bytes) -> None:
        headers = {"Content-Type": "application/json"}
        response = client.post("/score", content=body, headers=headers)
        assert response.status_code == 400
        assert response.json()["detail"] == (
            "request body nests arrays and objects deeper than 5 levels; flatten it, or raise "
            "the server's --max-json-depth"
        )

    def test_json_as_deep_as_the_limit_is_scored(self, client: TestClient) -> None:
        sample = {"completion": "4", "ground_truth": "4", "metadata": {"a": [[[]]]}}
        body = client.post("/score", json=sample).json()
        assert (body["reward"], body["metadata"]) == (1.0, {"a": [[[]]]})


def _scored_within(client: TestClient, tries: int) -> None:
    """Send a normal sample until it is scored (a cold start may outlast the deadline)."""
    for _ in range(tries):
        if client.post("/score", json={"completion": "x"}).status_code == 200:
            return
    raise AssertionError(f"not scored in {tries} tries")


def test_request_deadline_is_504_and_frees_the_slot() -> None:
    with TestClient(create_app(rk.load([slow], max_concurrent=1), deadline=0.4)) as client:
        _scored_within(client, tries=10)  # a process is up (its start outlives a 504)
        for sample in ({"completion": "hang"}, {"completion": "slow"}):
            response = client.post("/score", json=sample)
            assert response.status_code == 504
            assert response.json() == {"detail": "request deadline of 0.4s exceeded"}
        batch = client.post("/score/batch", json={"samples": [{"completion": "hang"}]})
        assert batch.status_code == 504
        # With threads the hung samples would hold the only slot: every request a 504. Here
        # the slot is free; a new process starts (slower than 0.4s on a busy machine).
        _scored_within(client, tries=10)


@pytest.mark.parametrize("given", ["to create_app", "to load"])
def test_sample_deadline_gives_an_invalid_result_and_frees_the_slot(given: str) -> None:
    if given == "to load":
        app = create_app(rk.load([slow], deadline=0.2, max_concurrent=1))
    else:
        app = create_app(rk.load([slow], max_concurrent=1), sample_deadline=0.2)
    with TestClient(app) as client:
        body = client.post("/score", json={"completion": "hang"}).json()
        assert body["valid"] is False
        assert body["error"] == "deadline of 0.2s exceeded"
        assert client.post("/score", json={"completion": "x"}).json()["reward"] == 1.0


def test_a_crashed_scoring_process_gives_an_invalid_result(client: TestClient) -> None:
    body = client.post("/score", json={"completion": "crash"}).json()
    assert body["valid"] is False
    assert body["error"].startswith(
        "the worker process exited with code 3 while scoring this sample"
    )
    assert client.post("/score", json={"completion": "4", "ground_truth": "4"}).status_code == 200


def test_any_function_is_served_a_lambda_included() -> None:
    # the scoring processes are forked from the server: they inherit the loaded reward
    scorer = rk.load({"anon": lambda messages, **kwargs: 1.0})
    with TestClient(create_app(scorer)) as client:
        assert client.post("/score", json={"completion": "x"}).json()["reward"] == 1.0


def test_unknown_route_is_json(client: TestClient) -> None:
    response = client.get("/nope")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


class TestAuth:
    @pytest.fixture(scope="class")
    @staticmethod
    def client() -> Iterator[TestClient]:
        with TestClient(create_app(rk.load([exact], max_concurrent=1), token="s3cret")) as c:
            yield c

    def test_missing_token_is_401(self, client: TestClient) -> None:
        response = client.post("/score", json={"completion": "4"})
        assert response.status_code == 401
        assert response.json()["detail"].startswith("missing bearer token; send 'Authorization")
        assert response.headers["www-authenticate"] == "Bearer"

    @pytest.mark.parametrize("header", ["Bearer wrong", "Bearer s3cre", "Basic s3cret"])
    def test_wrong_token_is_401(self, client: TestClient, header: str) -> None:
        response = client.post("/validate", json={"config": "x"}, headers={"Authorization": header})
        assert response.status_code == 401

    def test_right_token(self, client: TestClient) -> None:
        headers = {"Authorization": "Bearer s3cret"}
        response = client.post(
            "/score/batch", json={"samples": [{"completion": "4"}]}, headers=headers
        )
        assert response.status_code == 200

    def test_healthz_and_schema_need_no_token(self, client: TestClient) -> None:
        assert client.get("/healthz").status_code == 200
        assert client.get("/docs").status_code == 200
        schema = client.get("/openapi.json").json()
        assert "bearer" in schema["components"]["securitySchemes"]

    def test_unknown_paths_need_the_token_too(self, client: TestClient) -> None:
        assert client.get("/nope").status_code == 401

    @pytest.mark.parametrize("token", ["", "  "])
    def test_an_empty_token_is_refused(self, token: str) -> None:
        with pytest.raises(rk.ConfigError, match="token is empty; pass a non-empty secret"):
            create_app(rk.load([exact]), token=token)


class TestWorkspaceRoot:
    @pytest.fixture(scope="class")
    @staticmethod
    def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
        root = tmp_path_factory.mktemp("runs")
        (root / "0001").mkdir()
        (root / "0001" / "ok.txt").write_text("yes")
        (root / "escape").symlink_to(root.parent)
        return root

    @pytest.fixture(scope="class")
    @staticmethod
    def client(root: Path) -> Iterator[TestClient]:
        scorer = rk.load([has_ok_txt], max_concurrent=1)
        with TestClient(create_app(scorer, workspace_root=root)) as c:
            yield c

    @pytest.mark.parametrize("workspace", ["0001", "./0001/", "0001/../0001"])
    def test_relative_workspaces_are_taken_from_the_root(
        self, client: TestClient, workspace: str
    ) -> None:
        response = client.post("/score", json={"completion": "x", "workspace": workspace})
        assert response.json()["reward"] == 1.0

    def test_absolute_workspaces_inside_the_root_are_scored(
        self, client: TestClient, root: Path
    ) -> None:
        sample = {"completion": "x", "workspace": str(root / "0001")}
        assert client.post("/score", json=sample).json()["reward"] == 1.0

    @pytest.mark.parametrize("workspace", ["/etc", "..", "0001/../..", "escape", "escape/../0001"])
    def test_workspaces_outside_are_400(
        self, client: TestClient, root: Path, workspace: str
    ) -> None:
        response = client.post("/score", json={"completion": "x", "workspace": workspace})
        assert response.status_code == 400
        assert response.json()["detail"] == (
            f"body.workspace: {workspace!r} resolves outside the workspace root "
            f"{str(root.resolve())!r}; send a directory inside it (the server's --workspace-root)"
        )

    def test_a_batch_names_the_sample(self, client: TestClient) -> None:
        samples = [{"completion": "x", "workspace": w} for w in ("0001", "/", "0001")]
        response = client.post("/score/batch", json={"samples": samples})
        assert response.status_code == 400
        assert response.json()["detail"].startswith("body.samples.1.workspace: '/' resolves")

    def test_a_nul_byte_is_400(self, client: TestClient) -> None:
        response = client.post("/score", json={"completion": "x", "workspace": "a\u0000b"})
        assert response.status_code == 400
        assert response.json()["detail"].startswith("body.workspace: not a usable path (")

    def test_the_root_must_be_a_directory(self, tmp_path: Path) -> None:
        with pytest.raises(rk.ConfigError, match="workspace_root is not a directory"):
            create_app(rk.load([exact]), workspace_root=tmp_path / "nope")


class TestValidate:
    @pytest.fixture
    def client(self, tmp_path: Path) -> Iterator[TestClient]:
        shutil.copytree(EXAMPLES / "qa-eval", tmp_path / "qa-eval")
        shutil.copytree(EXAMPLES / "hello", tmp_path / "hello")
        with TestClient(create_app(rk.load([exact]), validate_root=tmp_path)) as c:
            yield c

    def test_off_by_default(self) -> None:
        with TestClient(create_app(rk.load([exact]))) as client:
            response = client.post("/validate", json={"config": str(EXAMPLES / "qa-eval")})
        assert response.status_code == 403
        assert "--validate-root" in response.json()["detail"]

    @pytest.mark.parametrize("config", ["/", "..", "../etc", "/etc/passwd"])
    def test_paths_outside_the_root_are_refused(self, client: TestClient, config: str) -> None:
        response = client.post("/validate", json={"config": config})
        assert response.status_code == 403
        assert "inside the validate root" in response.json()["detail"]

    def test_eval_yaml(self, client: TestClient) -> None:
        body = client.post("/validate", json={"config": "qa-eval"}).json()
        assert body["valid"] is True
        assert body["kind"] == "eval.yaml"
        assert "correct: builtin" in body["plan"]

    def test_tests_dir(self, client: TestClient) -> None:
        body = client.post("/validate", json={"config": "hello/tests"}).json()
        assert body["kind"] == "tests_dir"
        assert body["plan"]

    def test_missing_config_is_422(self, client: TestClient, tmp_path: Path) -> None:
        response = client.post("/validate", json={"config": str(tmp_path / "nope.yaml")})
        assert response.status_code == 422
        assert response.json()["detail"].endswith(
            "config not found. Pass a tests directory or an eval.yaml."
        )

    def test_bad_config_is_422_with_its_message(self, client: TestClient, tmp_path: Path) -> None:
        bad = tmp_path / "eval.yaml"
        bad.write_text("judges: 3\n")
        response = client.post("/validate", json={"config": str(bad)})
        assert response.status_code == 422
        assert str(bad) in response.json()["detail"]


def test_openapi_schema_lists_the_endpoints(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    endpoints = {"/healthz", "/score", "/score/batch", "/validate", "/get_reward"}
    assert set(schema["paths"]) == endpoints
    assert "securitySchemes" not in schema.get("components", {})
    error = schema["paths"]["/score"]["post"]["responses"]["422"]
    assert error["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorOut"
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_body_bytes": 0}, "max_body_bytes must be at least 1 (got 0)"),
        ({"max_batch": 0}, "max_batch must be at least 1 (got 0)"),
        ({"max_json_depth": 0}, "max_json_depth must be at least 1 (got 0)"),
        ({"deadline": -1}, "deadline must be a positive number of seconds (got -1)"),
        ({"body_timeout": 0}, "body_timeout must be a positive number of seconds (got 0)"),
        ({"sample_deadline": 0}, "sample_deadline must be a positive number of seconds (got 0)"),
    ],
)
def test_bad_limits_raise_config_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(rk.ConfigError, match=re.escape(message)):
        create_app(rk.load([exact]), **kwargs)


@pytest.mark.parametrize(("on_error", "valid"), [("fail", False), ("zero", True)])
def test_the_scoring_processes_keep_the_scorers_on_error(on_error: str, valid: bool) -> None:
    scorer = rk.load([exact, fails_on_boom], max_concurrent=1, on_error=on_error)
    with TestClient(create_app(scorer)) as client:
        sample = {"completion": "boom", "ground_truth": "boom"}
        body = client.post("/score", json=sample).json()
    assert body["valid"] is valid
    assert body["reward"] == (0.5 if valid else None)
