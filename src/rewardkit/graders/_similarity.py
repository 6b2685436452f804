"""`text_similarity`: how close the rendered input is to the reference, in [0, 1].

`fuzzy_match` is rapidfuzz's normalized Indel ratio; `bleu` sacrebleu's sentence BLEU;
`gleu` NLTK's sentence GLEU on whitespace tokens; `rouge_1`..`rouge_5` and `rouge_l` the
F-measure of rouge-score (no stemming). `meteor` and `cosine` are refused at load (see
`UNSUPPORTED`).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rewardkit.graders._graded import Graded, threshold_note
from rewardkit.graders._input import GraderInput
from rewardkit.graders._template import Template, TemplateError

__all__ = ["METRICS", "UNSUPPORTED", "TextSimilarity", "missing_package"]

_ROUGE = {f"rouge_{n}": f"rouge{n}" for n in range(1, 6)} | {"rouge_l": "rougeL"}
METRICS = ("fuzzy_match", "bleu", "gleu", *_ROUGE)
"""The metrics we compute."""
UNSUPPORTED = {
    "meteor": "needs NLTK's WordNet data, which rewardkit does not download; use rouge_l or bleu",
    "cosine": "needs an embeddings model, and rewardkit's model transport has no embeddings "
    "endpoint; use a score_model grader or fuzzy_match",
}
"""OpenAI's metrics we refuse at load, and why."""
_PACKAGE = {
    "fuzzy_match": ("rapidfuzz", "similarity"),
    "bleu": ("sacrebleu", "nlg"),
    "gleu": ("nltk", "nlg"),  # installed with rouge-score
}


def missing_package(metric: str) -> str | None:
    """The install line `metric` needs, when its package is absent."""
    module, extra = _PACKAGE.get(metric, ("rouge_score", "nlg"))
    if importlib.util.find_spec(module) is None:
        return f"pip install 'rewardkit[{extra}]'"
    return None


@dataclass(frozen=True, kw_only=True)
class TextSimilarity:
    """`metric(input, reference)`, with `pass_threshold` noted in the result."""

    kind: ClassVar[str] = "text_similarity"
    name: str
    metric: str
    input: Template
    reference: Template
    pass_threshold: float | None = None

    def evaluate(self, given: GraderInput) -> Graded:
        try:
            text, reference = self.input.render(given), self.reference.render(given)
        except TemplateError as exc:
            return Graded.failed(str(exc))
        score = min(1.0, max(0.0, _MEASURES[self.metric](self.metric, text, reference)))
        passed, note = threshold_note(score, self.pass_threshold)
        return Graded(score, f"{self.metric} {score:.4f}{note}", passed=passed)


def _fuzzy(_: str, text: str, reference: str) -> float:
    fuzz = importlib.import_module("rapidfuzz.fuzz")
    return float(fuzz.ratio(text, reference)) / 100


def _bleu(_: str, text: str, reference: str) -> float:
    sacrebleu = importlib.import_module("sacrebleu")
    return float(sacrebleu.sentence_bleu(text, [reference]).score) / 100


def _gleu(_: str, text: str, reference: str) -> float:
    gleu = importlib.import_module("nltk.translate.gleu_score")
    return float(gleu.sentence_gleu([reference.split()], text.split()))


def _rouge(metric: str, text: str, reference: str) -> float:
    scorer = importlib.import_module("rouge_score.rouge_scorer")
    kind = _ROUGE[metric]
    return float(scorer.RougeScorer([kind]).score(reference, text)[kind].fmeasure)


_MEASURES: dict[str, Callable[[str, str, str], float]] = {
    "fuzzy_match": _fuzzy,
    "bleu": _bleu,
    "gleu": _gleu,
    **dict.fromkeys(_ROUGE, _rouge),
}
