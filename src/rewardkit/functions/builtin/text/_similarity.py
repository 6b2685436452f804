"""Text-similarity rewards: fuzzy ratio (`rapidfuzz`), BLEU (`sacrebleu`), ROUGE (`rouge-score`).

Each compares the response with the reference(s) in `ground_truth` and scores in
[0, 1]; with several references, the best-matching one counts (BLEU uses them all, as
multi-reference BLEU does). The packages are extras, imported on first use.
"""

from __future__ import annotations

from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._extras import require
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    reference_texts,
    response_text,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["bleu_reward", "rouge_reward", "text_similarity_reward"]

_FUZZ_METHODS = ("ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio", "WRatio")
_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


def _result(metric: str, score: float, reason: str, threshold: float) -> EvaluateResult:
    score = min(1.0, max(0.0, score))
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={metric: MetricResult(score=score, reason=reason, success=score >= threshold)},
    )


@reward_function
def text_similarity_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    method: str = "ratio",
    case_sensitive: bool = False,
    threshold: float = 0.8,
    **kwargs: Any,
) -> EvaluateResult:
    """Fuzzy string similarity to the best reference, from `rapidfuzz.fuzz` (0-100 scaled to 0-1).

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference: a string, a message, the expected messages, or a
            list of acceptable strings.
        method: A `rapidfuzz.fuzz` scorer: `ratio` (normalised Indel similarity),
            `partial_ratio`, `token_sort_ratio`, `token_set_ratio` or `WRatio`.
        case_sensitive: Compare case as well.
        threshold: The score at which the metric counts as a success.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> text_similarity_reward(
        ...     [{"role": "assistant", "content": "The Eiffel Tower"}], "the eiffel tower"
        ... ).score
        1.0
    """
    if method not in _FUZZ_METHODS:
        raise ValueError(
            f"text_similarity_reward: method must be one of {_FUZZ_METHODS} (got {method!r})"
        )
    references = reference_texts(ground_truth, function="text_similarity_reward")
    fuzz = require(
        "rapidfuzz.fuzz", package="rapidfuzz", extra="similarity", function="text_similarity_reward"
    )
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("text_similarity", problem)
    scorer = getattr(fuzz, method)
    fold = (lambda s: s) if case_sensitive else str.casefold
    score = max(float(scorer(fold(text), fold(ref))) for ref in references) / 100
    return _result("text_similarity", score, f"{method} similarity {score:.3f}", threshold)


@reward_function
def bleu_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    threshold: float = 0.5,
    **kwargs: Any,
) -> EvaluateResult:
    """Sentence BLEU of the response against the reference(s), from `sacrebleu` (÷ 100).

    Uses sacrebleu's defaults for a sentence (13a tokenisation, exponential smoothing).

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference(s), as for `text_similarity_reward`.
        threshold: The score at which the metric counts as a success.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> bleu_reward(
        ...     [{"role": "assistant", "content": "the cat sat on the mat"}],
        ...     "the cat sat on the mat",
        ... ).score
        1.0
    """
    references = reference_texts(ground_truth, function="bleu_reward")
    sacrebleu = require("sacrebleu", package="sacrebleu", extra="nlg", function="bleu_reward")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("bleu", problem)
    score = float(sacrebleu.sentence_bleu(text, references).score) / 100
    return _result(
        "bleu", score, f"BLEU {score:.3f} against {len(references)} reference(s)", threshold
    )


@reward_function
def rouge_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    rouge_type: str = "rougeL",
    use_stemmer: bool = True,
    threshold: float = 0.5,
    **kwargs: Any,
) -> EvaluateResult:
    """ROUGE F-measure of the response against the best reference, from `rouge-score`.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference(s), as for `text_similarity_reward`.
        rouge_type: `rouge1`, `rouge2`, `rougeL` or `rougeLsum`.
        use_stemmer: Apply the Porter stemmer before matching.
        threshold: The score at which the metric counts as a success.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> rouge_reward(
        ...     [{"role": "assistant", "content": "The cats are sitting."}],
        ...     "the cat is sitting",
        ...     rouge_type="rouge1",
        ... ).score
        0.75
    """
    if rouge_type not in _ROUGE_TYPES:
        raise ValueError(
            f"rouge_reward: rouge_type must be one of {_ROUGE_TYPES} (got {rouge_type!r})"
        )
    references = reference_texts(ground_truth, function="rouge_reward")
    rouge = require(
        "rouge_score.rouge_scorer", package="rouge-score", extra="nlg", function="rouge_reward"
    )
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response(rouge_type, problem)
    scorer = rouge.RougeScorer([rouge_type], use_stemmer=use_stemmer)
    score = max(float(scorer.score(ref, text)[rouge_type].fmeasure) for ref in references)
    return _result(rouge_type, score, f"{rouge_type} F-measure {score:.3f}", threshold)
