"""The answer-equivalence engine behind `math_reward`, category by category.

Each row is (reference, answer, verdict). Value rows go through
`same_answer(parse_answer(reference), parse_answer(answer))`; rows about where the final
answer is (boxes, tags, `####`, "the answer is", hedges, cut-off responses) go through
`math_reward` on a whole response. Then the bounds of `parse_answer` and the values that
have none (`\\frac{0}{0}`, a power tower): never equal to anything, never an exception.
"""

from __future__ import annotations

import pytest

from rewardkit.functions.builtin import math_reward
from rewardkit.functions.builtin.math._equal import same_answer
from rewardkit.functions.builtin.math._final import final_answer
from rewardkit.functions.builtin.math._parse import (
    MAX_ANSWER,
    MAX_DEPTH,
    MAX_TOKENS,
    parse_answer,
)

pytest.importorskip("math_verify")


def _same(reference: str, answer: str) -> bool:
    gold, given = parse_answer(reference), parse_answer(answer)
    assert gold is not None, f"the reference {reference!r} does not parse"
    assert given is not None, f"the answer {answer!r} does not parse"
    return same_answer(gold, given)


def _score(reference: str, response: str) -> float:
    messages = [{"role": "user", "content": "Solve."}, {"role": "assistant", "content": response}]
    return math_reward(messages, ground_truth=reference).score


def _row(reference: str, answer: str, verdict: bool, name: str) -> object:
    return pytest.param(reference, answer, verdict, id=name)


# -- values ----------------------------------------------------------------------------------
NUMBERS = [
    _row("42", "42.0", True, "integer-as-decimal"),
    _row("42", "42.00", True, "trailing-zeros"),
    _row("7", "007", True, "leading-zeros"),
    _row("42", "43", False, "other-integer"),
    _row("\\frac{1}{12}", "0.0833333333333333", True, "printed-float-of-a-repeating-fraction"),
    _row("1", "0.999999999999", False, "long-decimal-of-a-terminating-value"),
    _row("\\sqrt{2}", "1.41421356237310", False, "long-decimal-of-an-irrational"),
    _row("\\pi", "3.14159265358979", False, "long-decimal-of-pi"),
    _row("0.5", ".5", True, "decimal-without-zero"),
    _row("3", "3.0001", False, "close-is-not-equal"),
    _row("\\frac{3}{6}", "0.5", True, "frac-is-decimal"),
    _row("0.5", "\\frac{3}{6}", True, "decimal-is-frac"),
    _row("\\frac{1}{2}", "1/2", True, "frac-is-slash"),
    _row("\\tfrac12", "0.5", True, "tfrac-one-digit-arguments"),
    _row("\\dfrac{5}{8}", "\\frac58", True, "dfrac-is-frac"),
    _row("\\frac58", "0.625", True, "frac58-is-decimal"),
    _row("\\frac58", "\\frac85", False, "frac58-is-not-frac85"),
    _row("2\\frac12", "5/2", True, "mixed-number"),
    _row("2\\frac{1}{2}", "\\frac{5}{2}", True, "mixed-number-braced"),
    _row("2\\frac{1}{2}", "1", False, "mixed-number-is-not-product"),
    _row("0.333", "\\frac13", False, "rounded-third-is-not-third"),
    _row("\\frac13", "0.333", False, "third-is-not-rounded-third"),
    _row("\\frac13", "0.3333333333", False, "third-is-not-ten-threes"),
    _row("\\frac{1}{2}", "\\frac{2}{4}", True, "unreduced-fraction"),
]
SIGNS = [
    _row("-\\frac{2}{3}", "\\frac{-2}{3}", True, "minus-in-numerator"),
    _row("-\\frac{2}{3}", "\\frac{2}{-3}", True, "minus-in-denominator"),
    _row("-\\frac{2}{3}", "\\frac{2}{3}", False, "sign-dropped"),
    _row("\\frac{-1}{2}", "-0.5", True, "negative-half"),
    _row("-5", "\\text{-}5", True, "minus-in-text"),
    _row("-5", "\\text{-5}", True, "signed-number-in-text"),
    _row("-5", "\N{MINUS SIGN}5", True, "unicode-minus"),
    _row("-5", "\N{EN DASH}5", True, "en-dash-minus"),
    _row("-5", "5", False, "positive-is-not-negative"),
    _row("+5", "5", True, "explicit-plus"),
    _row("-(-2)", "2", True, "double-negation"),
    _row("-0", "0", True, "negative-zero"),
]
RADICALS_AND_PI = [
    _row("\\sqrt{117}", "3\\sqrt{13}", True, "simplified-root"),
    _row("\\sqrt{8}", "2\\sqrt{3}", False, "wrong-simplified-root"),
    _row("\\sqrt2", "2^{1/2}", True, "root-is-half-power"),
    _row("\\sqrt2", "\\sqrt{2}", True, "sqrt-one-token-argument"),
    _row("\\sqrt[3]{8}", "2", True, "cube-root"),
    _row("\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt{2}}{2}", True, "rationalized"),
    _row("\\frac{\\sqrt{3}}{2}", "\\frac{1}{2}\\sqrt{3}", True, "coefficient-first"),
    _row("\\sqrt{2}+\\sqrt{3}", "\\sqrt{5+2\\sqrt{6}}", True, "denested-root"),
    _row("2\\pi", "2\N{GREEK SMALL LETTER PI}", True, "unicode-pi"),
    _row("2\\pi", "2", False, "pi-dropped"),
    _row("4\\sqrt{2}", "4", False, "root-dropped"),
    _row("\\pi", "\\frac{355}{113}", False, "pi-approximation"),
    _row("\\pi", "3.14159", False, "pi-decimals"),
    _row("e^{i\\pi}", "-1", True, "euler-identity"),
    _row("\\pi r^2", "r^2\\pi", True, "commuted-product"),
    _row("2\\pi", "2\\pi r", False, "extra-variable"),
]
PERCENT = [
    _row("25\\%", "25", True, "percent-is-its-number"),
    _row("25\\%", "0.25", True, "percent-is-its-hundredth"),
    _row("25", "25\\%", True, "number-is-percent"),
    _row("0.25", "25\\%", True, "hundredth-is-percent"),
    _row("25%", "25\\%", True, "plain-percent-sign"),
    _row("25\\%", "0.25\\%", False, "hundredth-percent"),
    _row("0.25\\%", "25\\%", False, "hundredfold-percent"),
    _row("25\\%", "26\\%", False, "other-percent"),
]
DEGREES = [
    _row("90^\\circ", "\\frac{\\pi}{2}", True, "degrees-are-radians"),
    _row("\\frac{\\pi}{2}", "90^\\circ", True, "radians-are-degrees"),
    _row("30^\\circ", "\\frac{\\pi}{6}", True, "thirty-degrees"),
    _row("90^\\circ", "90", True, "degrees-are-their-number"),
    _row("90", "90^\\circ", True, "number-is-degrees"),
    _row("90\N{DEGREE SIGN}", "90^{\\circ}", True, "degree-sign"),
    _row("90^\\circ", "\\pi", False, "wrong-radians"),
    _row("90^\\circ", "45^\\circ", False, "other-angle"),
]
CURRENCY_AND_THOUSANDS = [
    _row("5000", "\\$5,000", True, "dollars-and-comma"),
    _row("5000", "\\$5,000.00", True, "dollars-and-cents"),
    _row("5000", "$5000", True, "bare-dollar-sign"),
    _row("5000", "\N{EURO SIGN}5000", True, "euro-sign"),
    _row("5000", "5000\\text{ dollars}", True, "dollars-in-words"),
    _row("5.5", "\\$5.50", True, "cents"),
    _row("5000", "\\$500", False, "other-amount"),
    _row("14916", "14{,}916", True, "braced-comma"),
    _row("14916", "14\\,916", True, "thin-space"),
    _row("1000", "1 000", True, "space"),
    _row("1000000", "1,000,000", True, "two-commas"),
    _row("1000000", "1 000 000", True, "two-spaces"),
    _row("14916", "14,917", False, "other-thousands"),
]
UNITS = [
    _row("5\\text{ km}", "5000\\text{ m}", True, "km-is-m"),
    _row("5 km", "5000 meters", True, "km-is-meters"),
    _row(
        "5 km",
        "5000 m",
        True,
        "km-is-plain-m",
    ),
    _row("5 km", "5 m", False, "km-is-not-m"),
    _row("5\\text{ km}", "5\\text{ m}", False, "km-is-not-text-m"),
    _row("5\\text{ cm}", "0.05\\text{ m}", True, "cm-is-m"),
    _row("2 hours", "120 minutes", True, "hours-are-minutes"),
    _row("2\\text{ kg}", "2000\\text{ g}", True, "kg-is-g"),
    _row("13", "13 apples", True, "count-with-noun"),
    _row("13", "13\\text{ apples}", True, "count-with-text-noun"),
    _row("13 apples", "13", True, "noun-in-reference"),
    _row("60 km/h", "60", True, "rate"),
    _row("13", "14 apples", False, "other-count"),
    _row("3", "3 pm", True, "unit-word-pm-is-no-plus-minus"),
]
SCIENTIFIC = [
    _row("3 \\times 10^{8}", "3e8", True, "times-ten-is-e"),
    _row("3e8", "3\\times10^8", True, "e-is-times-ten"),
    _row("300000000", "3 \\times 10^{8}", True, "integer-is-times-ten"),
    _row("3 \\cdot 10^8", "300000000", True, "cdot-ten"),
    _row("3E8", "3e8", True, "capital-e"),
    _row("6.02\\times10^{23}", "6.02e23", True, "avogadro"),
    _row("1.5e-3", "0.0015", True, "negative-exponent"),
    _row("3\\times 10^{8}", "3\\times 10^{9}", False, "other-exponent"),
]
INTERVALS_AND_INEQUALITIES = [
    _row("(0,9)", "[0,9)", False, "open-is-not-half-open"),
    _row("[0,9]", "[0,9)", False, "closed-is-not-half-open"),
    _row("(0, 9)", "\\left(0,9\\right)", True, "left-right"),
    _row("x>5", "(5,\\infty)", True, "inequality-is-interval"),
    _row("(5,\\infty)", "x>5", True, "interval-is-inequality"),
    _row("x>5", "5<x", True, "flipped-inequality"),
    _row("x>5", "x<5", False, "reversed-inequality"),
    _row("x>5", "x\\geq5", False, "strict-is-not-loose"),
    _row("x>5", "y>5", False, "other-variable"),
    _row("x\\ge5", "[5,\\infty)", True, "loose-is-closed"),
    _row("x > 5", "(5, \N{INFINITY})", True, "unicode-infinity"),
    _row("x>5", "x \\in (5,\\infty)", True, "membership"),
    _row("-2<x<3", "(-2,3)", True, "chain"),
    _row("3 > x > -2", "(-2,3)", True, "descending-chain"),
    _row("-2 < x \\le 3", "(-2,3]", True, "half-closed-chain"),
    _row("-2<x<3", "(-2,3]", False, "chain-bound-closed"),
    _row(
        "(-\\infty,1)\\cup(2,\\infty)",
        "(2,\\infty)\\cup(-\\infty,1)",
        True,
        "union-in-any-order",
    ),
    _row("[1,2]\\cup[3,4]", "[3,4]\N{UNION}[1,2]", True, "unicode-union"),
    _row(
        "(-\\infty,1)\\cup(2,\\infty)",
        "(-\\infty,1]\\cup(2,\\infty)",
        False,
        "union-bound-closed",
    ),
    _row("(-\\infty,1)\\cup(2,\\infty)", "(-\\infty,1)", False, "union-part"),
    _row(
        "(-\\infty,1)\\cup(2,\\infty)",
        "x<1 \\text{ or } x>2",
        True,
        "union-is-inequalities-with-or",
    ),
]
SETS_LISTS_TUPLES = [
    _row("\\{1,2,3\\}", "3, 2, 1", True, "set-is-list-in-any-order"),
    _row("\\{1,2,3\\}", "\\{3,2,1\\}", True, "set-in-any-order"),
    _row("\\{1,2,3\\}", "\\{1,2\\}", False, "set-missing-item"),
    _row("\\{1,2,3\\}", "1,2,3,4", False, "list-extra-item"),
    _row("1, 2", "1 \\text{ and } 2", True, "list-with-and"),
    _row("1, 2", "2 or 1", True, "list-with-or"),
    _row("1,2", "2, 1", True, "list-without-spaces"),
    _row("(3,4)", "(3,4)", True, "same-tuple"),
    _row("(3,4)", "\\{3,4\\}", False, "tuple-is-not-set"),
    _row("\\{3,4\\}", "(3,4)", False, "set-is-not-tuple"),
    _row("(3,4)", "(4,3)", False, "tuple-order-matters"),
    _row("(1,2,3)", "(3,2,1)", False, "triple-order-matters"),
    _row("\\emptyset", "\\{\\}", True, "empty-set"),
    _row("\\varnothing", "\\emptyset", True, "varnothing"),
    _row("\N{EMPTY SET}", "\\{\\}", True, "unicode-empty-set"),
    _row("\\emptyset", "0", False, "empty-set-is-not-zero"),
    _row("\\emptyset", "\\{0\\}", False, "empty-set-is-not-set-of-zero"),
]
_P = "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"
_COLUMN = "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"
_ROW = "\\begin{pmatrix} 1 & 2 \\end{pmatrix}"
MATRICES = [
    _row(_P, _P.replace("pmatrix", "bmatrix"), True, "pmatrix-is-bmatrix"),
    _row(_P, _P.replace("pmatrix", "matrix"), True, "pmatrix-is-matrix"),
    _row(_P, "\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}", False, "transpose"),
    _row(_COLUMN, _ROW, False, "column-is-not-row"),
    _row(_P, _P.replace("1 &", "\\frac{2}{2} &"), True, "equal-cells"),
    _row(_P, _P.replace("4", "5"), False, "other-cell"),
]
EQUATIONS = [
    _row("y=2x+1", "2x-y+1=0", True, "rearranged-line"),
    _row("y=2x+1", "2y=4x+2", True, "scaled-line"),
    _row("y=2x+1", "2x+1", True, "right-hand-side"),
    _row("y=2x+1", "y=2x-1", False, "other-line"),
    _row("x=4", "4", True, "value-of-x"),
    _row("4", "x=4", True, "x-is-value"),
    _row("x=4", "y=4", False, "other-unknown"),
    _row("x^2+y^2=25", "y^2+x^2=5^2", True, "circle"),
    _row("x^2+y^2=25", "x^2+y^2=5", False, "other-circle"),
    _row("(x-2)(x-3)", "x^2-5x+6", True, "expanded-polynomial"),
    _row("x = 2 \\text{ or } x = 3", "2, 3", True, "roots-as-equations"),
    _row("f(x)=3x^2", "3x^2", True, "function-definition"),
]
PLUS_MINUS = [
    _row("1\\pm\\sqrt{19}", "1+\\sqrt{19}, 1-\\sqrt{19}", True, "both-roots"),
    _row("1\\pm\\sqrt{19}", "1-\\sqrt{19}, 1+\\sqrt{19}", True, "both-roots-any-order"),
    _row("1\\pm\\sqrt{19}", "\\frac{2 \\pm \\sqrt{76}}{2}", True, "unsimplified"),
    _row("1\\pm\\sqrt{19}", "1\\mp\\sqrt{19}", True, "minus-plus"),
    _row("1\\pm\\sqrt{19}", "1+\\sqrt{19}", False, "one-root"),
    _row("\\pm 2021", "2021", False, "positive-root-only"),
    _row("\\pm 2021", "-2021, 2021", True, "both-signs"),
    _row("\\pm2021", "\N{PLUS-MINUS SIGN}2021", True, "unicode-plus-minus"),
    _row("x=\\pm 3", "3,-3", True, "assigned-plus-minus"),
    _row("\\pm 2", "\\pm 3", False, "other-plus-minus"),
    _row("\\{3, -1, 5\\}", "5, 1 \\pm 2", True, "plus-minus-later-in-a-list"),
    _row("\\{3, -1, 5\\}", "1 \\pm 2, 5", True, "plus-minus-first-in-a-list"),
]


@pytest.mark.parametrize(("reference", "answer", "verdict"), NUMBERS)
def test_integers_decimals_fractions(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), SIGNS)
def test_signs(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), RADICALS_AND_PI)
def test_radicals_and_pi(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), PERCENT)
def test_percent(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), DEGREES)
def test_degrees(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), CURRENCY_AND_THOUSANDS)
def test_currency_and_thousands(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), UNITS)
def test_units(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), SCIENTIFIC)
def test_scientific_notation(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), INTERVALS_AND_INEQUALITIES)
def test_intervals_and_inequalities(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), SETS_LISTS_TUPLES)
def test_sets_lists_tuples(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), MATRICES)
def test_matrices(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), EQUATIONS)
def test_equations(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


@pytest.mark.parametrize(("reference", "answer", "verdict"), PLUS_MINUS)
def test_plus_minus(reference: str, answer: str, verdict: bool) -> None:
    assert _same(reference, answer) is verdict


def test_tolerance_is_the_users_choice() -> None:
    messages = [{"role": "assistant", "content": "So $\\boxed{3.1416}$."}]
    assert math_reward(messages, "\\pi").score == 0.0
    assert math_reward(messages, "\\pi", tolerance=1e-4).score == 1.0


# -- where the final answer is ---------------------------------------------------------------
HEDGES = [
    _row("12", "The answer is 12 or 14.", False, "unboxed-or"),
    _row("12", "So we get $12$ or $14$.", False, "closing-math-or"),
    _row("12", "\\boxed{12} or \\boxed{14}", False, "boxes-joined-by-or"),
    _row("12", "\\boxed{12}, \\boxed{13}, \\boxed{14}", False, "list-of-boxes"),
    _row("12", "\\boxed{12 \\text{ or } 14}", False, "or-inside-box"),
    _row("12", "Try \\boxed{11}. Try \\boxed{13}. So \\boxed{12}.", False, "three-boxes"),
    _row("14", "First \\boxed{12}. Then \\boxed{13}. So \\boxed{14}.", False, "three-boxes-last"),
    _row("12", "\\boxed{12}. Then \\boxed{12}. So \\boxed{12}.", True, "one-box-three-times"),
    _row("14", "First \\boxed{12}. Hmm, \\boxed{14}.", True, "two-boxes-is-a-correction"),
    _row("12, 14", "The answer is 12 or 14.", True, "or-for-a-list-reference"),
    _row("12, 14", "\\boxed{12} or \\boxed{14}", True, "boxes-for-a-list-reference"),
]
TRUNCATED = [
    _row("3/4", "So the answer is \\boxed{\\frac{3", False, "unclosed-box"),
    _row("(3,4)", "The intersection is at $\\boxed{(3,", False, "unclosed-box-point"),
    _row(
        "42",
        "Six crates of 7 give 6 * 7 = 42 bottles, so the answer is \\boxed{4",
        False,
        "unclosed-box-after-the-number",
    ),
    _row("4", "2 + 2 = \\boxed{4}, so the total is \\boxed{", False, "unclosed-box-after-a-box"),
    _row("42", "We need 6 * 7 = 42 so \\boxed{", False, "empty-unclosed-box"),
    _row("42", "<think>6 * 7 = 42, so \\boxed{42}", False, "unclosed-think"),
    _row("42", "<think>x</think>\\boxed{42", False, "unclosed-box-after-think"),
    _row("42", "6 * 7 = 42 bottles. Now subtract: 42 - ", False, "trailing-minus"),
    _row("42", "We get 42 \\cdot", False, "trailing-cdot"),
    _row("2500", "The price is 2500. Then tax is added, giving", False, "trailing-words"),
    _row(
        "42",
        "6 * 7 = 42, so <answer>42</answer> and then <answer>",
        False,
        "unclosed-answer-tag-after-a-closed-one",
    ),
    _row(
        "42",
        "6 * 7 = 42 <answer>",
        False,
        "unclosed-answer-tag",
    ),
    _row("2\\pi", "The period is $\\boxed{2\\pi}$", True, "box-closed-then-cut"),
]
LAST_BOX = [
    _row("6", "First $\\boxed{5}$; no, I dropped a term: $\\boxed{6}$.", True, "last-box-right"),
    _row("5", "First $\\boxed{5}$; no, I dropped a term: $\\boxed{6}$.", False, "first-box-right"),
    _row("12", "\\boxed{11} then \\boxed{12}", True, "second-box"),
    _row("42", "The answer is \\boxed{42}. Check: 42 +", True, "box-then-trailing-check"),
    _row("42", "<think>It is 41.</think>So it is \\boxed{42}.", True, "box-after-think"),
    _row("41", "<think>It is 41.</think>So it is \\boxed{42}.", False, "thought-is-not-answer"),
]
GSM8K = [
    _row("42", "Tom has 50 and gives 8 away.\n#### 42", True, "gsm8k"),
    _row("42", "#### 42.", True, "gsm8k-full-stop"),
    _row("42", "#### 41", False, "gsm8k-wrong"),
    _row("42", "#### 41\n#### 42", True, "gsm8k-last-marker"),
    _row("42", "#### 42\n#### 41", False, "gsm8k-last-marker-wrong"),
    _row("1000", "#### 1,000", True, "gsm8k-thousands"),
    _row("42", "#### $42", True, "gsm8k-dollars"),
]
TAGS = [
    _row("42", "<think>\n50 - 8 = 42\n</think>\n<answer>42</answer>", True, "answer-tag"),
    _row("42", "<answer>41</answer>", False, "answer-tag-wrong"),
    _row("42", "<think>43?</think><answer>42</answer>", True, "thought-then-tag"),
    _row("42", "<answer>\\boxed{42}</answer>", True, "box-in-tag"),
    _row("42", "<answer>The answer is 42</answer>", True, "phrase-in-tag"),
    _row("42", "<answer>42</answer> <answer>41</answer>", False, "last-tag-wins"),
    _row("42", "<answer>41</answer> then \\boxed{42}", False, "tag-before-box"),
]
PHRASES = [
    _row("42", "So 50 - 8 = 42 remain. The answer is 42.", True, "the-answer-is"),
    _row("42", "The final answer is: 42", True, "final-answer-colon"),
    _row("42", "Answer: 42", True, "answer-colon"),
    _row("42", "**Final Answer:** 42", True, "bold-final-answer"),
    _row("42", "The final answer is $42$.", True, "answer-in-math"),
    _row("42", "Answer: 41. Final answer: 42.", True, "last-phrase"),
    _row("42", "The answer is 42. We first had 41.", True, "phrase-then-working"),
    _row("42", "The answer is 41. (We also saw 42.)", False, "phrase-wrong"),
    _row("42", "So the area is $42$.", True, "closing-math"),
]


@pytest.mark.parametrize(("reference", "response", "verdict"), HEDGES)
def test_hedges(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(("reference", "response", "verdict"), TRUNCATED)
def test_truncated_responses(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(("reference", "response", "verdict"), LAST_BOX)
def test_last_box_wins(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(("reference", "response", "verdict"), GSM8K)
def test_gsm8k_marker(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(("reference", "response", "verdict"), TAGS)
def test_answer_tags(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(("reference", "response", "verdict"), PHRASES)
def test_answer_phrases(reference: str, response: str, verdict: bool) -> None:
    assert _score(reference, response) == float(verdict)


@pytest.mark.parametrize(
    ("response", "text", "where", "hedged"),
    [
        pytest.param("\\boxed{1}, \\boxed{2}", "1, 2", "box", False, id="adjacent-boxes"),
        pytest.param("a \\boxed{1} b \\boxed{2} c \\boxed{3}", "3", "box", True, id="three-boxes"),
        pytest.param("The answer is 12 or 14.", "12 or 14", "phrase", True, id="phrase-or"),
        pytest.param("#### 42", "42", "gsm8k", False, id="gsm8k"),
        pytest.param("<answer>7</answer>", "7", "tag", False, id="tag"),
    ],
)
def test_final_answer_says_where(response: str, text: str, where: str, hedged: bool) -> None:
    final = final_answer(response)
    assert final is not None
    assert (final.text, final.where, final.hedged) == (text, where, hedged)


@pytest.mark.parametrize(
    "response",
    [
        pytest.param("The answer is \\boxed{4", id="unclosed-box"),
        pytest.param("<think>\\boxed{7}", id="unclosed-think"),
        pytest.param("<answer>7</answer> <answer>", id="unclosed-answer-tag"),
        pytest.param("Nothing to see here.", id="no-answer"),
    ],
)
def test_final_answer_is_none_when_cut_off_or_absent(response: str) -> None:
    assert final_answer(response) is None


# -- bounds ----------------------------------------------------------------------------------
def test_parse_answer_reads_at_most_max_answer_characters() -> None:
    assert parse_answer("1" * MAX_ANSWER) is not None
    assert parse_answer("1" * (MAX_ANSWER + 1)) is None
    assert parse_answer("1 + " * (MAX_ANSWER // 4) + "1") is None


def test_parse_answer_reads_at_most_max_tokens() -> None:
    within = "+".join(["1"] * (MAX_TOKENS // 2))  # MAX_TOKENS - 1 tokens
    past = "+".join(["1"] * (MAX_TOKENS // 2 + 1))  # MAX_TOKENS + 1 tokens
    assert len(past) < MAX_ANSWER
    assert parse_answer(within) is not None
    assert parse_answer(past) is None


@pytest.mark.parametrize(
    ("opening", "inner", "closing"),
    [
        pytest.param("(", "1", ")", id="parentheses"),
        pytest.param("{", "1", "}", id="braces"),
        pytest.param("\\sqrt{", "2", "}", id="roots"),
        pytest.param("\\frac{", "1", "}{2}", id="fractions"),
        pytest.param("2^{", "2", "}", id="powers"),
        pytest.param("-(", "1", ")", id="negations"),
    ],
)
def test_parse_answer_reads_at_most_max_depth(opening: str, inner: str, closing: str) -> None:
    assert parse_answer(opening * 3 + inner + closing * 3) is not None
    assert parse_answer(opening * MAX_DEPTH + inner + closing * MAX_DEPTH) is None
    levels = (MAX_ANSWER - len(inner)) // (len(opening) + len(closing))
    assert parse_answer(opening * levels + inner + closing * levels) is None


def test_parse_answer_reads_no_huge_exponent() -> None:
    assert parse_answer("1e400") is not None
    assert parse_answer("1e999999") is None
    assert _score("1", "So it is \\boxed{1e999999}.") == 0.0


UNDEFINED = [
    pytest.param("\\frac{0}{0}", id="zero-over-zero"),
    pytest.param("\\frac{1}{0}", id="one-over-zero"),
    pytest.param("0\\cdot\\infty", id="zero-times-infinity"),
    pytest.param("\\infty-\\infty", id="infinity-minus-infinity"),
    pytest.param("9^{9^{9^9}}", id="power-tower"),
    pytest.param("2^{2^{2^{2^{2^{2}}}}}", id="twos-tower"),
    pytest.param("10^{10^{10}}", id="googolplex-ish"),
    pytest.param("e^{e^{e^{e^{10}}}}", id="exponential-tower"),
    pytest.param("(10^{10})!", id="huge-factorial"),
    pytest.param("1001!", id="factorial-past-bound"),
    pytest.param("\\ln 0", id="log-zero"),
    pytest.param("0^{-1}", id="zero-to-minus-one"),
]
_INSIDE = {
    "in-a-tuple": "(\\frac{0}{0}, 1)",
    "in-a-set": "\\{\\frac{0}{0}\\}",
    "in-a-list": "\\frac{0}{0}, 1",
    "assigned": "x = \\frac{0}{0}",
}


@pytest.mark.parametrize(
    "text", UNDEFINED + [pytest.param(text, id=name) for name, text in _INSIDE.items()]
)
def test_an_undefined_value_equals_no_value(text: str) -> None:
    undefined = parse_answer(text)
    assert undefined is not None
    for value in ("1", "0", "-1", "\\infty", "x", "\\{1\\}", "(1,2)"):
        other = parse_answer(value)
        assert other is not None
        assert same_answer(undefined, other) is False, value
        assert same_answer(other, undefined) is False, value
        assert same_answer(undefined, other, (0.5, 1e9)) is False, value
    assert _score("1", f"So it is $\\boxed{{{text}}}$.") == 0.0


@pytest.mark.parametrize(
    "text",
    UNDEFINED + [pytest.param(text, id=name) for name, text in _INSIDE.items()],
)
def test_an_undefined_value_is_not_even_itself(text: str) -> None:
    undefined = parse_answer(text)
    assert undefined is not None
    assert same_answer(undefined, undefined) is False
    assert _score(text, f"So it is $\\boxed{{{text}}}$.") == 0.0
