"""Reasoning-structure rewards: does the response lay out its reasoning in steps?

`reasoning_steps_reward` counts the lines that open a step ("Step 2:", "3.", "- ",
"Next, ..."); `sequence_reward` counts ordinal words ("First", "Second", ..., "Finally")
that appear in their natural order. Both are cheap surface heuristics: they reward the
shape of reasoning, not its correctness.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["DEFAULT_SEQUENCE_TERMS", "reasoning_steps_reward", "sequence_reward"]

_STEP_PATTERNS = {
    "explicit_steps": r"^[ \t]*(?:#+[ \t]*)?(?:\*\*)?step[ \t]*\d+\b",
    "numbered_lists": r"^[ \t]*\d{1,3}[.)][ \t]+\S",
    "bullet_points": r"^[ \t]*[-*•+][ \t]+\S",
    "transition_phrases": (
        r"^[ \t]*(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|fifth|next|then|after that"
        r"|afterwards|subsequently|finally|lastly|to begin|to start)\b"
    ),
}
DEFAULT_SEQUENCE_TERMS = (
    "First",
    "Second",
    "Third",
    "Fourth",
    "Fifth",
    "Next",
    "Then",
    "After that",
    "Finally",
    "Lastly",
    "In conclusion",
)
"""The ordinal words of `sequence_reward`, in the order a response would use them."""
_MAX_OCCURRENCES = 100
"""Occurrences of one term considered by `sequence_reward` (bounds the work on huge input)."""


@functools.lru_cache(maxsize=64)
def _compile(pattern: str, flags: int, function: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise ValueError(
            f"{function}: {pattern!r} is not a valid regular expression ({exc})"
        ) from None


def _step_lines(text: str, patterns: dict[str, str]) -> tuple[int, dict[str, int]]:
    """How many lines open a step, and how many matches each pattern has."""
    line_ends = [match.start() for match in re.finditer("\n", text)]
    lines: set[int] = set()
    counts: dict[str, int] = {}
    for name, pattern in patterns.items():
        flags = re.IGNORECASE | re.MULTILINE
        matches = list(_compile(pattern, flags, "reasoning_steps_reward").finditer(text))
        counts[name] = len(matches)
        lines.update(bisect.bisect_left(line_ends, match.start()) for match in matches)
    return len(lines), counts


def _check_count(function: str, name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{function}: {name} must be a positive integer (got {value!r})")
    return value


@reward_function
def reasoning_steps_reward(
    messages: list[Message],
    ground_truth: Any = None,
    pattern: str | None = None,
    min_steps: int = 3,
    max_steps: int | None = None,
    exclusive_patterns: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """Reward a response for reasoning in steps: `min(1, steps / (max_steps or min_steps))`.

    A step is a line that opens with a step marker: "Step N", a numbered item, a bullet,
    or a transition word such as "First," or "Finally," (each pattern has its metric). A
    line with two markers is one step. The `reasoning_steps` metric passes at `min_steps`.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        pattern: An extra step pattern (a regex, case-insensitive, `^` matches at each
            line); each line with a match is a step.
        min_steps: The steps needed to pass.
        max_steps: The steps for full credit (defaults to `min_steps`).
        exclusive_patterns: Count only `pattern`, not the built-in markers.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `pattern` is not a valid regex, a step count is not a positive
            integer, `max_steps < min_steps`, or `exclusive_patterns` without `pattern`.

    Example:
        >>> text = "Step 1: read.\\nStep 2: add.\\nStep 3: check."
        >>> reasoning_steps_reward([{"role": "assistant", "content": text}]).score
        1.0
    """
    name = "reasoning_steps_reward"
    needed = _check_count(name, "min_steps", min_steps)
    full = needed if max_steps is None else _check_count(name, "max_steps", max_steps)
    if full < needed:
        raise ValueError(f"{name}: max_steps ({full}) must be at least min_steps ({needed})")
    if exclusive_patterns and pattern is None:
        raise ValueError(f"{name}: exclusive_patterns=True needs a pattern")
    patterns = {} if exclusive_patterns else dict(_STEP_PATTERNS)
    if pattern is not None:
        patterns["custom_pattern"] = pattern
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("reasoning_steps", problem)
    steps, counts = _step_lines(text, patterns)
    score = min(1.0, steps / full)
    reason = f"{steps} reasoning step(s); {needed} needed to pass, {full} for full credit"
    metrics = {
        "reasoning_steps": MetricResult(score=score, reason=reason, success=steps >= needed),
        **{
            kind: MetricResult(
                score=min(1.0, count / full), reason=f"{count} match(es)", success=count > 0
            )
            for kind, count in counts.items()
        },
    }
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _longest_chain(text: str, terms: Sequence[str], flags: int) -> list[str]:
    """The longest run of `terms`, in their order, found at increasing positions."""
    chains: list[tuple[int, list[str]]] = []  # (position of the last term, the chain)
    for term in terms:
        found = _compile(rf"(?<!\w){re.escape(term)}(?!\w)", flags, "sequence_reward")
        extended = []
        for i, match in enumerate(found.finditer(text)):
            if i == _MAX_OCCURRENCES:
                break
            before = [chain for end, chain in chains if end < match.start()]
            extended.append((match.start(), [*max(before, key=len, default=[]), term]))
        chains += extended
    return max((chain for _, chain in chains), key=len, default=[])


@reward_function
def sequence_reward(
    messages: list[Message],
    ground_truth: Any = None,
    sequence_terms: Sequence[str] | None = None,
    min_matches: int = 3,
    case_sensitive: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """Reward ordinal words used in order: `min(1, in_order / min_matches)`.

    `in_order` is the length of the longest chain of `sequence_terms` that appear in the
    response in the list's order (a term found out of order does not count; terms may be
    skipped). Terms match whole words.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        sequence_terms: The terms in order; defaults to `DEFAULT_SEQUENCE_TERMS`.
        min_matches: Terms in order needed for full credit (and to pass).
        case_sensitive: Match the terms' case.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `min_matches` is not a positive integer, or `sequence_terms` is empty
            or holds something other than non-empty strings.

    Example:
        >>> text = "First, read. Then add. Finally, check."
        >>> sequence_reward([{"role": "assistant", "content": text}]).score
        1.0
    """
    needed = _check_count("sequence_reward", "min_matches", min_matches)
    terms = DEFAULT_SEQUENCE_TERMS if sequence_terms is None else sequence_terms
    if isinstance(terms, str) or not terms or not all(isinstance(t, str) and t for t in terms):
        raise ValueError(
            "sequence_reward: sequence_terms must be a non-empty list of non-empty strings "
            f"(got {sequence_terms!r:.100})"
        )
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("sequence_reasoning", problem)
    chain = _longest_chain(text, terms, 0 if case_sensitive else re.IGNORECASE)
    score = min(1.0, len(chain) / needed)
    shown = " → ".join(chain) or "none"
    reason = f"{len(chain)} sequence term(s) in order ({shown}); {needed} needed"
    metric = MetricResult(score=score, reason=reason, success=len(chain) >= needed)
    return EvaluateResult(score=score, reason=reason, metrics={"sequence_reasoning": metric})
