"""`@reward_function`: inputs in any shape, outputs checked, sync and async."""

from __future__ import annotations

import asyncio
import inspect
import math
import textwrap
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Dict, List, Optional, Union  # noqa: UP035 - the annotations under test

import numpy as np
import pytest
from pydantic import ValidationError

from rewardkit import EvaluateResult, Message, MetricResult, RewardOutput, reward_function

USER = {"role": "user", "content": "What is 2 + 2?"}
ASSISTANT = {"role": "assistant", "content": "4"}


def received(annotation: Any) -> Any:
    """A reward function annotated `messages: <annotation>` that returns what it got."""
    seen: list[Any] = []

    def fn(messages, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(messages)
        return 1.0

    if annotation is not inspect.Parameter.empty:
        fn.__annotations__["messages"] = annotation
    decorated = reward_function(fn)
    return decorated, seen


# --- decoration ----------------------------------------------------------------------------


def test_bare_decorator_keeps_metadata() -> None:
    def judge(
        messages: list[dict[str, Any]], ground_truth: str | None = None, **kwargs: Any
    ) -> float:
        """Doc."""
        return 1.0

    decorated = reward_function(judge)
    assert decorated.__reward_function__ is True  # type: ignore[attr-defined]
    assert decorated.__wrapped__ is judge  # type: ignore[attr-defined]
    assert (decorated.__name__, decorated.__doc__) == ("judge", "Doc.")
    assert inspect.signature(decorated) == inspect.signature(judge)
    assert decorated._reward_function_mode == "pointwise"  # type: ignore[attr-defined]
    assert decorated._reward_function_id is None  # type: ignore[attr-defined]


def test_decorator_with_options() -> None:
    @reward_function(id="my-eval", requirements=["numpy"])
    def judge(messages: list[Any], **kwargs: Any) -> float:
        return 0.5

    assert judge([ASSISTANT]).score == 0.5
    assert judge._reward_function_id == "my-eval"  # type: ignore[attr-defined]
    assert judge._reward_function_requirements == ["numpy"]  # type: ignore[attr-defined]
    assert reward_function()(judge) is judge  # idempotent


def test_decorating_twice_returns_the_same_function() -> None:
    @reward_function
    def judge(messages: list[Any], **kwargs: Any) -> float:
        return 0.5

    assert reward_function(judge) is judge


def test_unsupported_mode_and_non_callables() -> None:
    with pytest.raises(ValueError, match=r"reward_function\(mode='listwise'\) is not a mode"):
        reward_function(mode="listwise")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"@reward_function needs a function \(got int: 3\)"):
        reward_function(3)  # type: ignore[call-overload]


def test_kwargs_are_not_required() -> None:
    @reward_function
    def judge(messages: list[dict[str, Any]]) -> float:
        return len(messages)

    assert judge([USER, ASSISTANT]).score == 2.0


# --- inputs --------------------------------------------------------------------------------

AS_MESSAGES = [
    List[Message],  # noqa: UP006
    list[Message],
    Optional[List[Message]],  # noqa: UP006, UP045
    List[Message] | None,  # noqa: UP006
    Sequence[Message],
]
AS_DICTS = [
    List[Dict[str, str]],  # noqa: UP006
    List[Dict[str, Any]],  # noqa: UP006
    list[dict],
    list[dict[str, Any]],
    Optional[list[dict[str, Any]]],  # noqa: UP045
    list[Mapping[str, Any]],
]
AS_GIVEN = [
    inspect.Parameter.empty,
    Any,
    list,
    List[Any],  # noqa: UP006
    Union[List[Message], List[Dict[str, Any]]],  # noqa: UP006, UP007
    list[Message | dict[str, Any]],
]


@pytest.mark.parametrize("annotation", AS_MESSAGES)
def test_annotations_asking_for_messages_get_messages(annotation: Any) -> None:
    fn, seen = received(annotation)
    kept = Message(role="assistant", content="4")
    fn([USER, kept])
    got = seen[-1]
    assert got == [Message(**USER), kept]  # type: ignore[arg-type]
    assert got[1] is kept  # Message objects are passed as they are


@pytest.mark.parametrize("annotation", AS_DICTS)
def test_annotations_asking_for_dicts_get_dicts(annotation: Any) -> None:
    fn, seen = received(annotation)
    fn([USER, Message(role="assistant", content="4", reasoning_content="r")])
    assert seen[-1] == [USER, {"role": "assistant", "content": "4", "reasoning_content": "r"}]
    fn([USER, ASSISTANT])
    assert seen[-1] == [USER, ASSISTANT]


@pytest.mark.parametrize("annotation", AS_GIVEN)
def test_other_annotations_get_items_as_passed(annotation: Any) -> None:
    fn, seen = received(annotation)
    msg = Message(role="assistant", content="4")
    mixed = [USER, msg]
    fn(mixed)
    assert seen[-1] is mixed


def test_the_callers_list_is_never_modified() -> None:
    fn, seen = received(list[Message])
    messages = [dict(USER), dict(ASSISTANT)]
    fn(messages)
    assert messages == [USER, ASSISTANT]
    assert seen[-1] is not messages
    dict_fn, dict_seen = received(list[dict[str, Any]])
    with_message = [Message(role="user", content="hi")]
    dict_fn(with_message)
    assert isinstance(with_message[0], Message)
    assert dict_seen[-1] == [{"role": "user", "content": "hi"}]


def test_string_annotations_are_resolved() -> None:
    namespace: dict[str, Any] = {}
    source = textwrap.dedent(
        """
        from __future__ import annotations
        from typing import TYPE_CHECKING, Any
        from rewardkit import Message, reward_function
        if TYPE_CHECKING:
            from somewhere import Unknown

        @reward_function
        def resolved(messages: list[Message], **kwargs: Any) -> float:
            return float(isinstance(messages[0], Message))

        @reward_function
        def unresolved(messages: list[Message], other: Unknown = None, **kwargs: Any) -> float:
            return float(isinstance(messages[0], Message))

        @reward_function
        def unresolved_dicts(messages: list[dict[str, Any]], other: Unknown = None) -> float:
            return float(isinstance(messages[0], dict))

        @reward_function
        def guessed(messages: list[ChatMessage], **kwargs: Any) -> float:
            return float(isinstance(messages[0], Message))

        @reward_function
        def guessed_dicts(messages: Optional[list[JSONDict]]) -> float:
            return 0.0 if messages is None else float(isinstance(messages[0], dict))
        """
    )
    exec(compile(source, "<reward module>", "exec"), namespace)
    assert namespace["resolved"]([USER]).score == 1.0
    assert namespace["unresolved"]([USER]).score == 1.0  # resolved one by one
    assert namespace["unresolved_dicts"]([Message(role="user")]).score == 1.0
    assert namespace["guessed"]([USER]).score == 1.0  # a best guess from the text
    assert namespace["guessed_dicts"]([Message(role="user")]).score == 1.0
    assert namespace["guessed_dicts"](None).score == 0.0  # `Optional` read from the text


def test_original_messages_and_ground_truth() -> None:
    seen: dict[str, Any] = {}

    @reward_function
    def judge(
        messages: list[dict[str, Any]],
        original_messages: list[Message] | None = None,
        ground_truth: list[Message] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> float:
        seen.update(
            original_messages=original_messages,
            ground_truth=ground_truth,
            metadata=metadata,
            kwargs=kwargs,
        )
        return 1.0

    judge([ASSISTANT], original_messages=[USER], ground_truth=[ASSISTANT], metadata={"id": 7}, k=1)
    assert seen == {
        "original_messages": [Message(**USER)],  # type: ignore[arg-type]
        "ground_truth": [Message(**ASSISTANT)],  # type: ignore[arg-type]
        "metadata": {"id": 7},
        "kwargs": {"k": 1},
    }
    judge([ASSISTANT])
    assert seen["original_messages"] is None
    assert seen["ground_truth"] is None


def test_other_ground_truths_are_untouched() -> None:
    tests = [{"input": "1", "expected_output": "2"}]  # dicts without a role

    @reward_function
    def code(messages: list[Message], ground_truth: list[dict[str, Any]], **kwargs: Any) -> float:
        assert ground_truth is tests
        return 1.0

    @reward_function
    def text(messages: list[Message], ground_truth: str, **kwargs: Any) -> float:
        return float(ground_truth == "4")

    assert code([ASSISTANT], ground_truth=tests).score == 1.0
    assert text([ASSISTANT], "4").score == 1.0


def test_positional_keyword_only_and_method_parameters() -> None:
    class Grader:
        @reward_function
        def grade(self, messages: list[Message], **kwargs: Any) -> float:
            return float(isinstance(messages[0], Message))

    assert Grader().grade([USER]).score == 1.0
    assert Grader().grade(messages=[USER]).score == 1.0

    @reward_function
    def kw_only(*, messages: list[Message]) -> float:
        return float(isinstance(messages[0], Message))

    assert kw_only(messages=[USER]).score == 1.0

    @reward_function
    def pos_only(messages: list[Message], /) -> float:
        return float(isinstance(messages[0], Message))

    assert pos_only([USER]).score == 1.0


def test_messages_through_var_kwargs_are_checked() -> None:
    @reward_function
    def judge(**kwargs: Any) -> float:
        return float(len(kwargs["messages"]))

    assert judge(messages=[USER, ASSISTANT]).score == 2.0
    with pytest.raises(TypeError, match=r"judge\(\): messages\[0\] has no 'role'"):
        judge(messages=[{"content": "x"}])


def test_none_messages() -> None:
    fn, seen = received(Optional[List[Message]])  # noqa: UP006, UP045
    fn(None)
    assert seen[-1] is None
    required, _ = received(list[Message])
    with pytest.raises(
        TypeError, match=r"fn\(\): messages must be a list of messages \(got NoneType: None\)"
    ):
        required(None)


def test_content_none_and_content_parts() -> None:
    fn, seen = received(list[dict[str, Any]])
    tool_turn = {"role": "assistant", "content": None, "tool_calls": []}
    parts = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    fn([tool_turn, parts])
    assert seen[-1] == [tool_turn, parts]
    as_messages, seen_messages = received(list[Message])
    as_messages([tool_turn, parts])
    assert seen_messages[-1][1].content == [{"type": "text", "text": "hi"}]


# --- input errors --------------------------------------------------------------------------

MODES = [list[Message], list[dict[str, Any]], inspect.Parameter.empty]


@pytest.mark.parametrize("annotation", MODES)
@pytest.mark.parametrize(
    ("messages", "error"),
    [
        (
            "hello",
            r"fn\(\): messages must be a list of messages \(got str: 'hello'\)\. Pass e\.g\. \[\{'role': 'user', 'content': 'Hi'\}\]\.",
        ),
        ((USER,), r"fn\(\): messages must be a list of messages \(got tuple: "),
        (USER, r"fn\(\): messages must be a list of messages \(got dict: "),
        (
            [USER, {"content": "4"}],
            r"fn\(\): messages\[1\] has no 'role' \(got dict: \{'content': '4'\}\)\. Every message needs one: 'system', 'user', 'assistant' or 'tool'\.",
        ),
        (
            [{"role": 1, "content": "x"}],
            r"fn\(\): messages\[0\]\['role'\] must be a string \(got int: 1\)\.",
        ),
        (
            [{"role": "user", "content": 42}],
            r"fn\(\): messages\[0\]\['content'\] must be a string, a list of content parts or None \(got int: 42\)\.",
        ),
        (
            [{"role": "user", "content": ["hi"]}],
            r"fn\(\): messages\[0\]\['content'\]\[0\] must be a content part with a string 'type' \(got str: 'hi'\)\.",
        ),
        (
            [USER, "4"],
            r"fn\(\): messages\[1\] must be a dict or a Message \(got str: '4'\)\. Write each message as e\.g\. ",
        ),
    ],
)
def test_malformed_messages_name_the_parameter_and_index(
    annotation: Any, messages: Any, error: str
) -> None:
    fn, seen = received(annotation)
    with pytest.raises(TypeError, match=error):
        fn(messages)
    assert seen == []


def test_deeper_message_errors_come_from_the_message_model() -> None:
    fn, _ = received(list[Message])
    bad = {"role": "assistant", "content": None, "tool_calls": [{"function": {"arguments": "{}"}}]}
    with pytest.raises(
        TypeError,
        match=r"fn\(\): messages\[0\]\['tool_calls'\]\[0\]\['function'\]\['name'\]: Field required \(got dict: \{'arguments': '\{\}'\}\)\.",
    ) as caught:
        fn([bad])
    assert isinstance(caught.value.__cause__, ValidationError)


def test_long_values_are_cut_in_messages() -> None:
    fn, _ = received(list[Message])
    with pytest.raises(TypeError, match=r"\(got str: 'xxxx+\.\.\.\)") as caught:
        fn("x" * 500)
    assert len(str(caught.value)) < 240


def test_errors_name_the_parameter() -> None:
    @reward_function
    def judge(
        messages: list[Message], original_messages: list[Message] | None = None, **kwargs: Any
    ) -> float:
        return 1.0

    with pytest.raises(TypeError, match=r"^judge\(\): original_messages\[0\] has no 'role'"):
        judge([USER], original_messages=[{}])


# --- outputs -------------------------------------------------------------------------------


def returning(value: Any) -> Any:
    @reward_function
    def judge(messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        return value

    return judge


def test_an_evaluate_result_is_returned_as_is() -> None:
    result = EvaluateResult(
        score=0.3, metrics={"m": MetricResult(score=1, reason="r", success=True)}
    )
    assert returning(result)([ASSISTANT]) is result


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"score": 0.5, "reason": "half"}, EvaluateResult(score=0.5, reason="half")),
        (
            {"score": 1, "metrics": {"m": {"score": 1, "reason": "r", "is_score_valid": False}}},
            EvaluateResult(
                score=1.0, metrics={"m": MetricResult(score=1.0, reason="r", is_score_valid=False)}
            ),
        ),
        (0.25, EvaluateResult(score=0.25)),
        (3, EvaluateResult(score=3.0)),
        (True, EvaluateResult(score=1.0)),
        (False, EvaluateResult(score=0.0)),
        (np.float64(0.5), EvaluateResult(score=0.5)),
        (np.int64(2), EvaluateResult(score=2.0)),
    ],
)
def test_returns_are_converted(value: Any, expected: EvaluateResult) -> None:
    result = returning(value)([ASSISTANT])
    assert type(result) is EvaluateResult
    assert result == expected


def test_a_reward_output_return_is_converted() -> None:
    @reward_function
    def legacy(messages: list[dict[str, Any]], **kwargs: Any) -> RewardOutput:
        return RewardOutput(score=0.75)

    with pytest.warns(DeprecationWarning, match="RewardOutput is deprecated"):
        assert legacy([ASSISTANT]) == EvaluateResult(score=0.75)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (
            None,
            r"judge\(\) returned NoneType: None; a reward function must return an EvaluateResult, a dict of its fields \(with a 'score'\), or a number or bool\.",
        ),
        ("0.5", r"judge\(\) returned str: '0\.5'; a reward function must return"),
        (
            (0.5, {"m": 1.0}),
            r"judge\(\) returned tuple: \(0\.5, \{'m': 1\.0\}\); a reward function must return",
        ),
        (math.nan, r"judge\(\) returned nan; a score must be a finite number\."),
        (-math.inf, r"judge\(\) returned -inf; a score must be a finite number\."),
        (
            {"score": "high"},
            r"judge\(\) returned a dict that is not a valid EvaluateResult: score: Input should be a valid number, unable to parse string as a number \(got str: 'high'\)\. Return e\.g\. \{'score': 0\.5, 'reason': '\.\.\.'\}\.",
        ),
        (
            {"reason": "no score"},
            r"judge\(\) returned a dict that is not a valid EvaluateResult: score: Field required \(got dict: \{'reason': 'no score'\}\)\.",
        ),
        (
            {"score": math.nan, "metrics": {"m": 1}},
            r"score: Input should be a finite number \(got float: nan\) \(and 1 more\)\.",
        ),
        (
            EvaluateResult.model_construct(score=math.nan),
            r"judge\(\) returned an EvaluateResult whose score is not a finite number \(got float: nan\)\.",
        ),
        (
            EvaluateResult.model_construct(score="x"),
            r"whose score is not a finite number \(got str: 'x'\)",
        ),
    ],
)
def test_bad_returns_are_type_errors_naming_the_function(value: Any, error: str) -> None:
    with pytest.raises(TypeError, match=error):
        returning(value)([ASSISTANT])


def test_exceptions_propagate_unchanged() -> None:
    boom = ZeroDivisionError("boom")

    @reward_function
    def judge(messages: list[dict[str, Any]], **kwargs: Any) -> float:
        raise boom

    with pytest.raises(ZeroDivisionError) as caught:
        judge([ASSISTANT])
    assert caught.value is boom


def test_a_sync_function_returning_a_coroutine_is_an_error() -> None:
    async def later() -> float:
        return 1.0

    @reward_function
    def judge(messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        return later()

    with pytest.raises(
        TypeError, match=r"judge\(\) returned a coroutine: .*Declare it `async def`"
    ):
        judge([ASSISTANT])


# --- async ---------------------------------------------------------------------------------


def test_async_reward_functions() -> None:
    @reward_function
    async def judge(messages: list[Message], ground_truth: str | None = None, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return {"score": float(messages[-1].content == ground_truth), "reason": "compared"}

    assert inspect.iscoroutinefunction(judge)
    assert judge.__reward_function__ is True  # type: ignore[attr-defined]
    result = asyncio.run(judge([USER, ASSISTANT], ground_truth="4"))
    assert result == EvaluateResult(score=1.0, reason="compared")


def test_async_errors() -> None:
    @reward_function
    async def judge(messages: list[Message], **kwargs: Any) -> Any:
        if kwargs.get("fail"):
            raise KeyError("inner")
        return "not a result"

    with pytest.raises(TypeError, match=r"judge\(\): messages must be a list"):
        asyncio.run(judge("x"))
    with pytest.raises(TypeError, match=r"judge\(\) returned str: 'not a result'"):
        asyncio.run(judge([USER]))
    with pytest.raises(KeyError, match="inner"):
        asyncio.run(judge([USER], fail=True))

    @reward_function
    async def fine(messages: list[Message], **kwargs: Any) -> EvaluateResult:
        return EvaluateResult(score=0.5)

    assert asyncio.run(fine([USER])).score == 0.5


def test_typing_of_the_decorated_function() -> None:
    @reward_function
    def judge(messages: list[dict[str, Any]], **kwargs: Any) -> float:
        return 1.0

    if typing.TYPE_CHECKING:  # mypy sees an EvaluateResult-returning function
        typing.assert_type(judge([ASSISTANT]), EvaluateResult)
    assert judge([ASSISTANT]).score == 1.0


def test_async_inputs_by_keyword_and_unconverted() -> None:
    @reward_function
    async def judge(messages: list[Message], original_messages: Any = None, **kwargs: Any) -> Any:
        assert isinstance(messages[0], Message)
        return EvaluateResult.model_construct(score=math.inf)

    with pytest.raises(TypeError, match=r"judge\(\) returned an EvaluateResult whose score"):
        asyncio.run(judge(messages=[USER]))

    @reward_function
    async def plain(original_messages: Any, messages: Any = None, **kwargs: Any) -> float:
        return 0.5

    assert asyncio.run(plain([USER], [ASSISTANT])).score == 0.5


def test_an_evaluate_result_subclass_is_accepted() -> None:
    class Detailed(EvaluateResult):
        model_name: str = "m"

    result = Detailed(score=0.5)
    assert returning(result)([ASSISTANT]) is result


def test_mappings_that_are_not_dicts() -> None:
    from types import MappingProxyType

    first, second = MappingProxyType(USER), MappingProxyType(ASSISTANT)
    as_dicts, seen_dicts = received(list[dict[str, Any]])
    as_dicts([first, second])
    assert seen_dicts[-1] == [USER, ASSISTANT]
    assert all(type(m) is dict for m in seen_dicts[-1])
    as_messages, seen_messages = received(list[Message])
    as_messages([first])
    assert seen_messages[-1] == [Message(**USER)]  # type: ignore[arg-type]
    as_given, seen_given = received(inspect.Parameter.empty)
    as_given([first])
    assert seen_given[-1][0] is first


def test_unresolvable_annotations_without_a_hint_keep_the_items() -> None:
    namespace: dict[str, Any] = {}
    source = textwrap.dedent(
        """
        from __future__ import annotations
        from rewardkit import reward_function

        @reward_function
        def judge(messages: Conversation, **kwargs) -> float:
            return float(type(messages[0]).__name__ == "Message")
        """
    )
    exec(compile(source, "<reward module>", "exec"), namespace)
    assert namespace["judge"]([Message(role="user")]).score == 1.0
    assert namespace["judge"]([USER]).score == 0.0


def test_a_message_subclass_annotation_gets_that_class() -> None:
    class Turn(Message):
        weight: float = 1.0

    fn, seen = received(list[Turn])
    fn([USER, Message(role="assistant", content="4"), Turn(role="assistant", weight=0.5)])
    first, second, third = seen[-1]
    assert [type(m) for m in seen[-1]] == [Turn, Turn, Turn]
    assert (first.content, second.content, third.weight) == (USER["content"], "4", 0.5)


# --- batch mode and reward-kit 0.4.1's error types -----------------------------------------


def test_batch_mode_converts_each_conversation_and_validates_the_list() -> None:
    @reward_function(mode="batch")
    def judge(rollouts_messages: list[list[Message]], **kwargs: Any) -> list[EvaluateResult]:
        return [EvaluateResult(score=float(len(r))) for r in rollouts_messages if r[0].role]

    rollouts = [[{"role": "user", "content": "a"}], [ASSISTANT, ASSISTANT]]
    assert [r.score for r in judge(rollouts_messages=rollouts)] == [1.0, 2.0]
    assert judge._reward_function_mode == "batch"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"judge\(\): rollouts_messages\[1\]\[0\] must be a dict"):
        judge(rollouts_messages=[[ASSISTANT], ["not a message"]])


def test_batch_mode_output_errors_name_the_function() -> None:
    @reward_function(mode="batch")
    def scores(rollouts_messages: Any, **kwargs: Any) -> Any:
        return kwargs["out"]

    assert [r.score for r in scores([[ASSISTANT]], out=[0.5, {"score": 1}])] == [0.5, 1.0]
    with pytest.raises(
        TypeError,
        match=r"list that is not one valid EvaluateResult.*\n.*"
        r"for mode 'batch':\n1 validation error for list\[EvaluateResult\]",
    ):
        scores([[ASSISTANT]], out=[{"wrong": 1}])
    with pytest.raises(
        ValueError, match=r"a batch reward function \(mode='batch'\) must return a list"
    ):
        scores([[ASSISTANT]], out=EvaluateResult(score=1.0))


def test_input_and_output_errors_are_type_and_value_errors() -> None:
    fn, _ = received(list[Message])
    with pytest.raises(ValueError, match=r"\(Input 'messages' failed Pydantic validation\.\)$"):
        fn([{"content": "no role"}])

    @reward_function
    def judge(messages: Any, **kwargs: Any) -> Any:
        return {"reason": "no score"}

    with pytest.raises(ValueError, match=r"Return value from function 'judge' failed Pydantic"):
        judge([ASSISTANT])
