"""`@criterion`, `rk.<name>`, naming, descriptions, and per-run registries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit.criteria import Registry, criterion
from rewardkit.harbor._tests_dir import discover


def checks_of(tests_dir: Path) -> list[rk.Check]:
    return [c for leaf in discover(tests_dir).leaves() for c in leaf.checks]


def details(out: Path) -> dict:
    return json.loads(out.with_name("reward-details.json").read_text())


def test_names_descriptions_and_weights(task) -> None:
    tests, _ = task(
        {
            "checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion(description="at least {n} lines (timeout {timeout})")
            def min_lines(workspace, n, timeout=5):
                return True

            rk.min_lines(3, weight=2.0)
            rk.min_lines(n=7, name="custom", isolated=True)
            rk.file_exists("a" * 80)
            """
        }
    )
    first, second, third = checks_of(tests)
    assert (first.name, first.description, first.weight) == (
        "min_lines:3",
        "at least 3 lines (timeout 5)",
        2.0,
    )
    assert (second.name, second.isolated) == ("custom", True)
    assert third.name == "file_exists:" + "a" * 50


def test_zero_parameter_criterion_registers_once_and_a_call_replaces_it(task) -> None:
    tests, _ = task(
        {
            "auto.py": """
            from rewardkit import criterion

            @criterion
            def ok(workspace):
                return True
            """,
            "called.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def z(workspace):
                return True

            rk.z(weight=5, name="custom")
            rk.z()
            """,
        }
    )
    auto, first, second = checks_of(tests)
    assert (auto.name, auto.weight) == ("ok", 1.0)
    assert [(first.name, first.weight), (second.name, second.weight)] == [("custom", 5), ("z", 1.0)]


def test_description_defaults_to_the_function_name() -> None:
    @criterion
    def plain(workspace, x):
        """Not used as the description."""
        return True

    assert rk.plain.make_check((1,)).description == "plain"


def test_calling_the_decorated_function_directly_is_an_error() -> None:
    registry = Registry.with_builtins()
    with registry.collecting():

        @criterion(shared=True)
        def helper(workspace, n):
            return True

        with pytest.raises(TypeError, match=r"rk\.helper\(\.\.\.\) instead of helper"):
            helper(3)


def test_missing_argument_names_the_criterion_and_its_signature() -> None:
    factory = Registry.with_builtins().factories["file_contains"]
    with pytest.raises(
        TypeError, match=r"rk\.file_contains\(path, text\): missing a required argument: 'text'"
    ):
        factory.make_check(("out.txt",))


def test_bad_description_template_is_explained() -> None:
    registry = Registry.with_builtins()
    with registry.collecting():

        @criterion(description="uses {missing}", shared=True)
        def c(workspace, n):
            return True

        with pytest.raises(ValueError, match="cannot be formatted"):
            registry.factories["c"](1)


def test_a_criterion_must_take_the_workspace() -> None:
    with pytest.raises(TypeError, match="first parameter"):
        criterion(lambda: True)


def test_never_called_factory_warns(task) -> None:
    tests, _ = task(
        {
            "checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def unused(workspace, n):
                return True

            rk.file_exists("x")
            """
        }
    )
    with pytest.warns(UserWarning, match="'unused' was defined with @criterion but never called"):
        discover(tests)


def test_shared_factory_is_callable_from_subdirectories(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "shared.py": """
            from rewardkit import criterion

            @criterion(shared=True, description="{name} has {n} chars")
            def has_len(workspace, name, n):
                return len((workspace / name).read_text()) == n
            """,
            "a/check.py": "import rewardkit as rk\nrk.has_len('f.txt', 3)\n",
            "b/check.py": "import rewardkit as rk\nrk.has_len('f.txt', 4)\n",
        },
        {"f.txt": "abc"},
    )
    assert rk.run(tests, workspace=ws, output=tmp_path / "o" / "r.json") == {"a": 1.0, "b": 0.0}


def test_shadowing_a_builtin_stays_inside_its_run(task, tmp_path: Path) -> None:
    """Harbor's global registry leaks an override into every later run; ours does not."""
    shadow, ws = task(
        {
            "checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def file_exists(workspace, path):
                return False

            rk.file_exists("f.txt")
            """
        },
        {"f.txt": "x"},
    )
    plain = tmp_path / "plain"
    (plain / "checks.py").parent.mkdir()
    (plain / "checks.py").write_text("import rewardkit as rk\nrk.file_exists('f.txt')\n")
    out = tmp_path / "out" / "reward.json"
    with pytest.warns(UserWarning, match="overrides the built-in criterion in this run only"):
        assert rk.run(shadow, workspace=ws, output=out) == {"reward": 0.0}
    assert rk.run(plain, workspace=ws, output=out) == {"reward": 1.0}
    assert rk.file_exists.fn.__module__ == "rewardkit.criteria.files"


def test_rk_criteria_namespace_works_on_first_access() -> None:
    from rewardkit import criteria

    assert rk.criteria is criteria
    assert criteria.file_exists is criteria.builtins()["file_exists"]
    with pytest.raises(AttributeError, match="no criterion 'nope'"):
        criteria.nope  # noqa: B018


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute or criterion 'nope'"):
        rk.nope  # noqa: B018
    assert "file_exists" in dir(rk)


def test_dict_results_carry_reasoning(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": """
            from rewardkit import criterion

            @criterion
            def graded(workspace):
                return {"score": 0.25, "reasoning": "one of four", "confidence": 0.9}
            """
        }
    )
    out = tmp_path / "o" / "reward.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.25}
    (criterion_detail,) = details(out)["reward"]["criteria"]
    assert criterion_detail["reasoning"] == "one of four"
    assert criterion_detail["confidence"] == 0.9
