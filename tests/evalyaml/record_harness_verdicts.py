"""Record which documented eval.yaml snippets the harness itself loads (a development script).

Run with a Python that has the agent-eval-harness installed (`pip install <harness checkout>`):

    python tests/evalyaml/record_harness_verdicts.py HARNESS_CHECKOUT > tests/evalyaml/harness_verdicts.json

"Loads" means `EvalConfig.from_yaml` and `load_judges` (skills/eval-run/scripts/score.py)
both succeed on the snippet staged by `_snippets.stage`, run from the project directory.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _snippets


def main(checkout: str) -> None:
    sys.path.insert(0, str(Path(checkout) / "skills" / "eval-run" / "scripts"))
    os.environ.setdefault("EVAL_JUDGE_MODEL", "stub-model")
    os.environ.setdefault("ANTHROPIC_API_KEY", "stub-key")  # LLM judges check for a key at load
    from agent_eval.config import EvalConfig
    from score import load_judges

    root = _snippets.docs_root()
    assert root is not None, "set REWARDKIT_HARNESS_DOCS"
    verdicts = {}
    for snippet in _snippets.snippets(root):
        with tempfile.TemporaryDirectory() as tmp:
            config_path = _snippets.stage(snippet, Path(tmp))
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    config = EvalConfig.from_yaml(config_path)
                    load_judges(config, Path(tmp))
                verdicts[snippet.id] = "loads"
            except Exception as exc:
                verdicts[snippet.id] = f"error: {type(exc).__name__}: {exc}"[:300]
            finally:
                os.chdir(cwd)
                staged = [
                    n for n, m in sys.modules.items() if tmp in str(getattr(m, "__file__", ""))
                ]
                for name in staged:
                    del sys.modules[name]
    json.dump(verdicts, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
