"""Reading judge replies: tolerant JSON extraction, strict scores, samples and the guard."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from rewardkit.judges import (
    Binary,
    CriterionDef,
    Likert,
    Numeric,
    ReplyError,
    Verdict,
    combine_samples,
    extract_json,
    guard_detail,
    guarded_score,
    parse_reply,
    verdict_outcome,
)

CORRECT = CriterionDef(name="correct", description="Is it correct?")
READABLE = CriterionDef(name="readable", description="Readable?", format=Likert(points=5))
BOTH = (CORRECT, READABLE)
BATCH = '{"correct": {"score": "yes", "reasoning": "ok"}, "readable": {"score": 4, "reasoning": "mostly"}}'


def values(verdicts: tuple[Verdict, ...]) -> list[tuple[float, Any, str]]:
    return [(v.value, v.raw, v.reasoning) for v in verdicts]


@pytest.mark.parametrize(
    "reply",
    [
        BATCH,
        f"  {BATCH}\n",
        f"```json\n{BATCH}\n```",
        f"Here you go:\n```\n{BATCH}\n```\nHope that helps.",
        f"```JSON {BATCH}```",
        f"My verdict: {BATCH} -- done.",
        f"```python\nx = 1\n```\n```json\n{BATCH}\n```",
    ],
)
def test_valid_and_wrapped_replies(reply: str) -> None:
    assert values(parse_reply(reply, BOTH)) == [(1.0, "yes", "ok"), (0.75, 4, "mostly")]


def test_a_single_criterion_may_answer_flat_or_keyed() -> None:
    flat = parse_reply('{"score": 2, "reasoning": "meh"}', [READABLE])
    keyed = parse_reply('{"readable": {"score": 2, "reasoning": "meh"}}', [READABLE])
    assert values(flat) == values(keyed) == [(0.25, 2, "meh")]


def test_missing_reasoning_extra_keys_and_numeric_strings() -> None:
    numeric = CriterionDef(name="n", description="N", format=Numeric(min=0, max=1))
    (v,) = parse_reply('{"score": "0.4", "confidence": 0.9}', [numeric])
    assert (v.value, v.raw, v.reasoning) == (0.4, "0.4", "")
    (v,) = parse_reply('{"score": 9, "reasoning": null}', [READABLE])
    assert (v.value, v.reasoning) == (1.0, "")  # clamped
    (v,) = parse_reply('{"score": "yes", "reasoning": ["a", "b"]}', [CORRECT])
    assert v.reasoning == "['a', 'b']"


def test_negate_flips_the_value_and_keeps_the_raw_answer() -> None:
    negated = replace(READABLE, negate=True)
    (v,) = parse_reply('{"score": 4, "reasoning": ""}', [negated])
    assert (v.value, v.raw) == (0.25, 4)
    (v,) = parse_reply('{"score": "no", "reasoning": ""}', [replace(CORRECT, negate=True)])
    assert v.value == 1.0


@pytest.mark.parametrize(
    ("reply", "criteria", "message"),
    [
        ("I cannot grade this.", BOTH, "no JSON object found in the judge's reply"),
        ("{not json at all}", BOTH, "no JSON object found"),
        ("[1, 2]", BOTH, "no JSON object found"),
        (
            '{"correct": {"score": "yes"}}',
            BOTH,
            "no answer for criterion 'readable' (the reply's keys: 'correct')",
        ),
        ("{}", BOTH, "(the reply's keys: none)"),
        (
            '{"correct": "yes", "readable": 3}',
            BOTH,
            "criterion 'correct': expected an object with 'score' and 'reasoning', got 'yes'",
        ),
        ('{"correct": {"reasoning": "x"}}', [CORRECT], "criterion 'correct': expected an object"),
        (
            '{"score": "five", "reasoning": ""}',
            [READABLE],
            "criterion 'readable': expected a number, got 'five'",
        ),
        ('{"score": null}', [CORRECT], "criterion 'correct': expected a number, got None"),
    ],
)
def test_garbage_raises_a_reply_error_with_an_excerpt(
    reply: str, criteria: tuple[CriterionDef, ...], message: str
) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(reply, criteria)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)  # the transport retries ValueErrors
    assert info.value.excerpt == reply
    assert f"the reply began: {reply!r}" in str(info.value)


def test_long_replies_are_cut_in_the_message() -> None:
    with pytest.raises(ReplyError) as info:
        extract_json("x" * 500)
    assert info.value.excerpt == "x" * 200 + "…"


def test_extract_json_prefers_the_whole_text_then_fences_then_braces() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('text {"a": 1} ```json\n{"b": 2}\n```') == {"b": 2}
    assert extract_json('say {"a": {"b": 1}} ok') == {"a": {"b": 1}}


# --- samples ---------------------------------------------------------------------------


def verdicts(criterion: CriterionDef, raws: list[Any]) -> list[Verdict | None]:
    out: list[Verdict | None] = []
    for raw in raws:
        if raw is None:
            out.append(None)
        else:
            reply = json.dumps({"score": raw, "reasoning": f"r{raw}"})
            out.extend(parse_reply(reply, [criterion]))
    return out


def test_likert_samples_5_3_1_give_the_median_and_agreement() -> None:
    combined = combine_samples(verdicts(READABLE, [5, 3, 1]))
    assert combined is not None
    assert (combined.value, combined.raw, combined.reasoning) == (0.5, 3, "r3")
    assert combined.samples == (5, 3, 1)
    assert round(combined.agreement or 0, 4) == 0.6667


def test_binary_samples_yes_no_yes() -> None:
    combined = combine_samples(verdicts(CORRECT, ["yes", "no", "yes"]))
    assert combined is not None
    assert (combined.value, combined.samples) == (1.0, ("yes", "no", "yes"))
    assert round(combined.agreement or 0, 4) == 0.6667


def test_even_counts_take_the_lower_median_and_the_guard_the_upper() -> None:
    samples = verdicts(CORRECT, ["yes", "no"])
    assert combine_samples(samples).value == 0.0  # type: ignore[union-attr]
    assert combine_samples(samples, upper=True).value == 1.0  # type: ignore[union-attr]


def test_failed_samples_are_left_out_but_listed() -> None:
    combined = combine_samples(verdicts(READABLE, [None, 5, 5]))
    assert combined is not None
    assert (combined.value, combined.samples, combined.agreement) == (1.0, (None, 5, 5), 1.0)
    assert combine_samples([None, None]) is None


def test_one_sample_is_returned_as_it_is() -> None:
    (only,) = verdicts(READABLE, [4])
    assert combine_samples([only]) is only
    assert combine_samples([None]) is None


# --- guard and outcomes ----------------------------------------------------------------


def test_guard_detail_and_penalty() -> None:
    flagged = Verdict(value=1.0, raw="yes", reasoning="asks for a 10")
    assert guard_detail(flagged) == {"flagged": True, "reasoning": "asks for a 10"}
    assert guard_detail(replace(flagged, value=0.0)) == {
        "flagged": False,
        "reasoning": "asks for a 10",
    }
    assert guard_detail(None, "judge timed out") == {"flagged": None, "error": "judge timed out"}
    assert guard_detail(None)["flagged"] is None
    assert guarded_score(0.8, "penalize", True) == 0.0
    assert guarded_score(-0.5, "penalize", True) == -0.5
    assert guarded_score(0.8, "flag", True) == 0.8
    assert guarded_score(0.8, "penalize", None) == 0.8


def test_verdict_outcome_carries_details_fields() -> None:
    criterion = CriterionDef(
        name="c", description="C?", format=Binary(), id="R7", weight=2.0, negate=True, optional=True
    )
    combined = combine_samples(verdicts(criterion, ["no", "no", "yes"]))
    assert combined is not None
    outcome = verdict_outcome(criterion, combined, model="openai/gpt-5", duration_ms=12.5)
    assert (outcome.name, outcome.status, outcome.value, outcome.raw) == ("c", "scored", 1.0, "no")
    assert (outcome.weight, outcome.description, outcome.reasoning) == (2.0, "C?", "rno")
    assert (outcome.model, outcome.duration_ms) == ("openai/gpt-5", 12.5)
    assert outcome.extra == {
        "id": "R7",
        "negate": True,
        "optional": True,
        "samples": ["no", "no", "yes"],
        "agreement": 0.6667,
    }
    plain = verdict_outcome(CORRECT, Verdict(value=1.0, raw="yes", reasoning=""))
    assert plain.extra == {}
    assert plain.reasoning is None
