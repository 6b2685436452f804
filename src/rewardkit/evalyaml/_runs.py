"""Where `rewardkit eval` finds its cases: a harness run directory, or merged case directories.

A harness run is `runs/<eval>/<run>/` holding `run_result.json` and `cases/<case>/` (the
collected outputs); each case's `input.yaml` and `annotations.yaml` stay in the dataset,
`dataset.path/<case>/` (docs/eval-yaml.md). In the merged layout one directory per case holds
both. A baseline run (`--baseline`) is found by its path, or by its id beside the run.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError
from rewardkit.core._untrusted import CapExceeded, loads_json, loads_yaml
from rewardkit.evalyaml._case_files import MAX_DATA_BYTES, MAX_EXPANDED_CHARS, named
from rewardkit.evalyaml._case_names import CaseNames
from rewardkit.evalyaml._cases import Layout
from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["baseline_run", "baseline_summary", "find_cases"]

_SUMMARIES = ("summary.yaml", "summary.json")


def find_cases(suite: EvalSuite, cases: Path | None) -> tuple[Path, CaseNames, Layout]:
    """The directory holding the cases, their names, and the layout of their records.

    `cases` (`--cases`, from the working directory) wins over `dataset.path` (from the
    eval.yaml's directory). A run directory may be given for its `cases/`.

    Raises:
        ConfigError: no cases directory, or a run's case has no dataset case; the message
            names the path, the key and the fix.
    """
    key = "--cases" if cases is not None else "dataset.path"
    root = cases if cases is not None else suite.dataset
    if root is None:
        raise ConfigError(
            "no cases: set dataset.path or pass --cases DIR", path=suite.path, key="dataset.path"
        )
    if (root / "cases").is_dir() and (root / "run_result.json").is_file():
        root = root / "cases"
    if not root.is_dir():
        raise ConfigError(
            f"no such directory ({key}). Pass --cases runs/<eval>/<run>/cases for a harness "
            f"run, or a directory of case directories",
            path=root,
        )
    is_run = root.name == "cases" and (root.parent / "run_result.json").is_file()
    run = root.parent if is_run else None
    dataset = suite.dataset
    if dataset is not None and dataset.resolve() == root.resolve():
        dataset = None
    names = CaseNames.listed(root)
    if dataset is not None:
        _check_dataset(dataset, names, suite.path)
    paths = tuple(str(o["path"]) for o in suite.outputs if o.get("path"))
    tools = tuple(str(o["tool"]) for o in suite.outputs if o.get("tool"))
    layout = Layout(
        dataset=dataset,
        run=run,
        outputs=paths,
        tools=tools,
        traces=suite.traces,
        steps=suite.steps,
    )
    return root, names, layout


def _check_dataset(dataset: Path, names: CaseNames, eval_yaml: Path) -> None:
    if not dataset.is_dir():
        raise ConfigError(
            "dataset directory not found; a run's cases take input.yaml and annotations.yaml "
            "from dataset.path/<case>/. Set dataset.path (relative to the eval.yaml) to the "
            "dataset the run was made from",
            path=dataset,
        )
    missing = (name for name in names if not (dataset / name).is_dir())
    shown = list(islice(missing, 3))
    if shown:
        more = sum(1 for _ in missing)
        shown_text = ", ".join(shown) + (f" and {more} more" if more else "")
        raise ConfigError(
            f"no dataset case for {shown_text} (looked in {dataset}). Point dataset.path at the "
            f"dataset the run was made from, or remove the case from the run",
            path=eval_yaml,
            key="dataset.path",
        )


def baseline_run(given: str, run: Path | None) -> Path:
    """The baseline run directory: `given` as a path, else a run of that id beside `run`.

    Raises:
        ConfigError: neither exists.
    """
    path = Path(given)
    if path.is_dir():
        return path
    if run is not None and (run.parent / given).is_dir():
        return run.parent / given
    beside = f" or {run.parent / given}" if run is not None else ""
    raise ConfigError(
        f"--baseline: no run directory at {path}{beside}. Pass the directory of a scored run "
        f"(it holds summary.yaml) or, for a harness run, the id of a run beside it"
    )


def baseline_summary(run: Path) -> dict[str, Any]:
    """The baseline run's `summary.yaml` (else `summary.json`), read under the caps.

    Raises:
        ConfigError: it has neither, or it is not a mapping.
    """
    import yaml

    for name in _SUMMARIES:
        data = named(run, name, MAX_DATA_BYTES)
        if data is None:
            continue
        try:
            text = data.decode("utf-8", "replace")
            parsed = (
                loads_yaml(text, str(run / name), max_chars=MAX_EXPANDED_CHARS)
                if name.endswith(".yaml")
                else loads_json(text, str(run / name))
            )
        except (CapExceeded, ValueError, yaml.YAMLError) as exc:
            raise ConfigError(
                f"cannot read the baseline's summary: {exc}", path=run / name
            ) from None
        if isinstance(parsed, dict):
            return parsed
        raise ConfigError("the baseline's summary is not a mapping", path=run / name)
    raise ConfigError(
        "the baseline run has no summary.yaml or summary.json. Score it first "
        f"(rewardkit eval EVAL_YAML --cases {run}/cases --out {run}), or pass a scored run",
        path=run,
        key="--baseline",
    )
