"""Schemathesis against the app's own OpenAPI schema: every answer conforms, none is a 500."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from serve_rewards import exact

import rewardkit as rk
from rewardkit.server import create_app

schemathesis = pytest.importorskip("schemathesis")

APP = create_app(rk.load([exact], max_concurrent=2), deadline=10)  # generated bodies fit
# `/validate` loads whatever path it is given (a random one could be `/`): covered by
# test_server_app.py instead.
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path="/validate")


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: Any) -> None:
    case.call_and_validate()
