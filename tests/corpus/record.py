"""Record each corpus case's expected `reward.json` from Harbor RewardKit 0.2.3.

This is a script, not a test. tests/compat/test_harbor_corpus.py checks that our `rewardkit`
writes the same `reward.json` for every case recorded here.

A case is a directory `tests/corpus/<case>/` with:
  case.toml            description = "..."; optionally exact = false and why = "..." when our
                       output deliberately differs from Harbor's
  tests/               a Harbor tests directory (criteria .py files, reward.toml, subdirs)
  workspace/           the files the criteria look at
  expected/reward.json recorded here, byte for byte as Harbor wrote it

Harbor RewardKit needs Python >= 3.12 and its own venv:

    PYENV_VERSION=3.12.1 python3.12 -m venv /tmp/harborvenv \
        && /tmp/harborvenv/bin/pip install 'harbor-rewardkit[all]==0.2.3'

Then, from the repository root (all cases, or only those named):

    .venv/bin/python tests/corpus/record.py [CASE ...]

`$HARBOR_REWARDKIT` overrides the Harbor command (default /tmp/harborvenv/bin/rewardkit).
Each case runs on a temporary copy of its `tests/` and `workspace/`, with the workspace as
the working directory (Harbor reads relative trajectory paths from the working directory;
ours reads them inside the workspace, so the two agree there). The test runs ours the same
way. A Harbor run takes about 5 s (it imports LiteLLM).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent
DEFAULT_HARBOR = "/tmp/harborvenv/bin/rewardkit"
_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def cases() -> list[Path]:
    """Every case directory, sorted by name."""
    return sorted(p.parent for p in CORPUS.glob("*/case.toml"))


def case_config(case: Path) -> dict[str, Any]:
    with (case / "case.toml").open("rb") as f:
        return tomllib.load(f)


def stage(case: Path, into: Path) -> tuple[Path, Path]:
    """Copy the case's `tests/` and `workspace/` under `into`; return both copies."""
    tests = into / "tests"
    workspace = into / "workspace"
    shutil.copytree(case / "tests", tests, symlinks=True)
    shutil.copytree(case / "workspace", workspace, symlinks=True)
    return tests, workspace


def run_env() -> dict[str, str]:
    """The environment both implementations run in: no proxies, no bytecode files."""
    env = {k: v for k, v in os.environ.items() if k not in _PROXY_VARS}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["no_proxy"] = env["NO_PROXY"] = "*"
    return env


def root_reward_names(case: Path) -> list[str]:
    """Names of the root `[[reward]]` tables of the case's tests dir."""
    toml = case / "tests" / "reward.toml"
    if not toml.is_file():
        return []
    with toml.open("rb") as f:
        data = tomllib.load(f)
    return [spec["name"] for spec in data.get("reward", []) if "name" in spec]


def detailed_keys(case: Path, reward: dict[str, float]) -> list[str]:
    """The keys of `reward.json` that `reward-details.json` must describe.

    The first key is always a dimension (`reward` in the flat layout, the first sorted
    dimension in the nested one); after it, every key that is not a root `[[reward]]`
    extra is a dimension too.
    """
    keys = list(reward)
    extras = set(root_reward_names(case))
    return keys[:1] + [k for k in keys[1:] if k not in extras]


def record(case: Path, harbor: str) -> str:
    """Run Harbor on one case and write its expected/reward.json; return a summary line."""
    with tempfile.TemporaryDirectory(prefix=f"corpus-{case.name}-") as tmp:
        tests, workspace = stage(case, Path(tmp))
        out = Path(tmp) / "out" / "reward.json"
        proc = subprocess.run(
            [harbor, str(tests), "--workspace", str(workspace), "--output", str(out)],
            cwd=workspace,
            env=run_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0 or not out.is_file():
            raise SystemExit(
                f"{case.name}: Harbor exited with {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        data = out.read_bytes()
        reward = json.loads(data)
        details = json.loads((out.parent / "reward-details.json").read_text())
        want = detailed_keys(case, reward)
        if sorted(details) != sorted(want):
            raise SystemExit(
                f"{case.name}: Harbor detailed {sorted(details)}, but detailed_keys() "
                f"predicts {sorted(want)}; fix detailed_keys() before recording."
            )
    expected = case / "expected" / "reward.json"
    expected.parent.mkdir(exist_ok=True)
    expected.write_bytes(data)
    return f"{case.name}: {data.decode()}".replace("\n", " ")


def main(argv: list[str]) -> int:
    harbor = os.environ.get("HARBOR_REWARDKIT", DEFAULT_HARBOR)
    known = {case.name: case for case in cases()}
    unknown = [name for name in argv if name not in known]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    for case in [known[name] for name in argv] or list(known.values()):
        print(record(case, harbor), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
