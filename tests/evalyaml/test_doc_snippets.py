"""Every eval.yaml snippet of the harness's documentation that the harness loads loads here.

The verdicts were recorded by running the harness itself (agent-eval-harness 1.41.0, commit
2a10e50) over the same staged snippets: `record_harness_verdicts.py`. A snippet the harness
rejects for a judge or reward problem is rejected here too; one it rejects for a part rewardkit
does not run (e.g. `generation`) is accepted.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.evalyaml import _snippets

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._suite import load_suite

ROOT = _snippets.docs_root()
VERDICTS: dict[str, str] = json.loads((Path(__file__).parent / "harness_verdicts.json").read_text())
SNIPPETS = list(_snippets.snippets(ROOT)) if ROOT else []
NOT_RUN_HERE = ("generation.",)
"""Harness errors about parts rewardkit accepts without running."""


def _top_level_keys() -> frozenset[str]:
    """The keys of the "Top-level keys" table of the harness's eval.yaml reference."""
    assert ROOT is not None
    text = (ROOT / "website" / "reference" / "eval-yaml.md").read_text(encoding="utf-8")
    table = text.split("## Top-level keys", 1)[1].split("\n## ", 1)[0]
    return frozenset(re.findall(r"^\| `(\w+)` \|", table, re.M))


EVAL_YAML_KEYS = _top_level_keys() if ROOT else frozenset()

pytestmark = pytest.mark.skipif(ROOT is None, reason="the harness docs are not on this machine")


def test_the_top_level_keys_are_those_of_the_reference() -> None:
    assert {"judges", "thresholds", "reward", "mlflow", "skill"} <= EVAL_YAML_KEYS
    assert len(EVAL_YAML_KEYS) == 18


def test_every_snippet_has_a_recorded_verdict() -> None:
    unknown = [s.id for s in SNIPPETS if s.id not in VERDICTS]
    assert not unknown, f"re-record with record_harness_verdicts.py: {unknown}"
    assert len(SNIPPETS) >= 100


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.id)
def test_snippet_loads_as_in_the_harness(
    snippet: _snippets.Snippet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = VERDICTS.get(snippet.id, "missing")
    config = _snippets.stage(snippet, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    if verdict == "loads" or any(part in verdict for part in NOT_RUN_HERE):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_suite(config)
        if set(yaml.safe_load(snippet.text)) <= EVAL_YAML_KEYS:  # an eval.yaml, not an input.yaml
            unknown = [str(w.message) for w in caught if "unknown" in str(w.message)]
            assert not unknown
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ConfigError):
                load_suite(config)


@pytest.fixture(autouse=True)
def _forget_staged_modules(tmp_path: Path) -> Iterator[None]:
    """Code judges of one snippet (e.g. `eval.judges.rm`) must not shadow another's."""
    yield
    for name, module in list(sys.modules.items()):
        if str(tmp_path) in str(getattr(module, "__file__", None) or ""):
            del sys.modules[name]
