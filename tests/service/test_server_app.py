"""`create_app` through FastAPI's `TestClient`: every endpoint and every error path."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import rewardkit as rk
from rewardkit.server import create_app

EXAMPLES = Path(__file__).parents[2] / "examples"


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"] == ground_truth)


@rk.reward_function
def slow(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    if messages[-1]["content"] == "slow":
        time.sleep(0.5)
    return 1.0


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(rk.load([exact, slow]), max_body_bytes=2000, max_batch=3)) as c:
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
    assert response.json() == {"detail": "request body exceeds the limit of 2000 bytes"}


def test_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    chunks = iter([b'{"completion": "', b"x" * 1500, b"x" * 1500, b'"}'])
    response = client.post("/score", content=chunks, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert "2000 bytes" in response.json()["detail"]


def test_streamed_body_under_the_limit_is_scored(client: TestClient) -> None:
    chunks = iter([b'{"completion": ', b'"4", "ground_truth": "4"}'])
    response = client.post("/score", content=chunks, headers={"Content-Type": "application/json"})
    assert response.json()["reward"] == 1.0


def test_request_deadline_is_504() -> None:
    with TestClient(create_app(rk.load([slow]), deadline=0.05)) as client:
        response = client.post("/score", json={"completion": "slow"})
        assert response.status_code == 504
        assert response.json() == {"detail": "request deadline of 0.05s exceeded"}
        batch = client.post("/score/batch", json={"samples": [{"completion": "slow"}]})
        assert batch.status_code == 504


def test_sample_deadline_gives_an_invalid_result_instead() -> None:
    with TestClient(create_app(rk.load([slow], deadline=0.05))) as client:
        body = client.post("/score", json={"completion": "slow"}).json()
    assert body["valid"] is False
    assert body["error"] == "deadline of 0.05s exceeded"


def test_unknown_route_is_json(client: TestClient) -> None:
    response = client.get("/nope")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


class TestAuth:
    @pytest.fixture
    def client(self) -> Iterator[TestClient]:
        with TestClient(create_app(rk.load([exact]), token="s3cret")) as c:
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
        schema = client.get("/openapi.json").json()
        assert "bearer" in schema["components"]["securitySchemes"]


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
    assert set(schema["paths"]) == {"/healthz", "/score", "/score/batch", "/validate"}
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
        ({"deadline": -1}, "deadline must be a positive number of seconds (got -1)"),
    ],
)
def test_bad_limits_raise_config_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(rk.ConfigError, match=re.escape(message)):
        create_app(rk.load([exact]), **kwargs)
