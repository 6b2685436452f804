"""Read one math answer (LaTeX or plain text) into a small tree.

`parse_answer("\\frac{1}{2}")` gives `("/", ("n", 1), ("n", 2))`. The nodes are tuples:

- `("n", Fraction)` a number; `("s", name)` a variable; `("c", "pi" | "e" | "i" | "inf")`
- `("+", [terms])`, `("*", [factors])`, `("/", a, b)`, `("^", a, b)`, `("neg", a)`,
  `("f", name, arg)` (sqrt, abs, sin, ln, ...), `("pm", a, b)` for a ± b
- `("pct", a)` a percentage, `("deg", a)` an angle in degrees, `("unit", a, name)`
- `("tuple", [items], open, close)` a bracketed list (a point, or an interval when its
  brackets say so), `("set", [items])`, `("list", [items], joiner)` (a bare list: "1, 2"
  or "3 or 5"), `("union", [items])`, `("rel", [sides], [ops])` an equation, an
  inequality or a chain, `("matrix", [rows])`, `("text", words)`

Bounded for untrusted text: at most `MAX_ANSWER` characters, `MAX_TOKENS` tokens and
`MAX_DEPTH` levels of nesting; anything past them, or outside the grammar, is `None`.

Over 350 lines: one recursive-descent grammar, read top to bottom; split, its rules would import
each other.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Any

__all__ = ["MAX_ANSWER", "Node", "parse_answer"]

Node = tuple[Any, ...]

MAX_ANSWER = 2_000
"""Longer answers are not parsed (a final answer is short; this bounds the work)."""
MAX_TOKENS = 400
LONG_DECIMAL = 12
"""A decimal with this many significant digits is a printed float (`0.0833333333333333`):
it equals a fraction whose decimals never end when it agrees to all its digits but the last
(see `_equal._repeating`)."""
MAX_DEPTH = 40

_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
     "ninety": 90, "hundred": 100, "thousand": 1000}  # fmt: skip

_FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "ln", "log", "exp", "lg",
}  # fmt: skip
_CONSTANTS = {"pi": "pi", "infty": "inf", "infinity": "inf", "imath": "i"}
_RELATIONS = {
    "=": "=", "<": "<", ">": ">", "<=": "<=", ">=": ">=", "!=": "!=",
    "\\le": "<=", "\\leq": "<=", "\\leqslant": "<=", "\\ge": ">=", "\\geq": ">=",
    "\\geqslant": ">=", "\\neq": "!=", "\\ne": "!=", "\\lt": "<", "\\gt": ">",
    "\\approx": "=", "\\equiv": "=",
}  # fmt: skip
_TIMES = {"*", "\\cdot", "\\times", "\\ast"}
_NOT_ATOMS = {"\\cup", "\\pm", "\\mp", "\\in", "\\\\", "\\}", "\\div", "\\end", *_TIMES}
"""Commands that never start a factor (so `2\\cup` is not read as `2 * \\cup`)."""
_IGNORED_COMMANDS = {
    "\\left", "\\right", "\\displaystyle", "\\big", "\\Big", "\\bigg", "\\Bigg", "\\bigl",
    "\\bigr", "\\Bigl", "\\Bigr", "\\limits", "\\nolimits", "\\textstyle", "\\quad",
    "\\qquad", "\\mathbf", "\\mathrm", "\\mathit", "\\boldsymbol", "\\bf", "\\rm",
    "\\textbf", "\\textit", "\\mathsf", "\\bm", "\\hbox", "\\mbox", "\\textnormal",
    "\\operatorname", "\\boxed", "\\fbox", "\\ensuremath",
}  # fmt: skip
_SYMBOL_COMMANDS = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma", "tau",
    "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda",
    "Xi", "Sigma", "Phi", "Psi", "Omega",
}  # fmt: skip

_REPLACEMENTS = [
    (re.compile(r"\\[dtc]frac"), "\\frac"),
    (re.compile(r"\\(?:text|mathrm|textnormal|mbox)\{\s*(?:or)\s*\}"), " or "),
    (re.compile(r"\\(?:text|mathrm|textnormal|mbox)\{\s*(?:and)\s*\}"), " and "),
    (re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|°|\\degree|\^\s*\{\s*o\s*\}"), " \\degree "),
    (re.compile(r"\\%|%"), " \\percent "),
    (re.compile(r"\\\$|\\textdollar|\\dollar|\$|\\euro|€|£"), " "),
    (re.compile(r"(?<=\d)\s*\{,\}\s*(?=\d{3})"), ""),
    (re.compile(r"(?<=\d),\\!\s*(?=\d{3}(?!\d))"), ""),
    (re.compile(r"\\[()\[\]]"), " "),
    (re.compile(r"(?<=\d)\\[,;:!]\s*(?=\d{3}(?!\d))"), ""),
    (re.compile(r"(?<!\\)\\[,;:! ]|~|\\quad|\\qquad|\\hspace\{[^{}]*\}"), " "),
    (re.compile(r"[−–—]"), "-"),
    (re.compile(r"×"), "\\times "),
    (re.compile(r"[·⋅]"), "\\cdot "),
    (re.compile(r"π"), "\\pi "),
    (re.compile(r"∞"), "\\infty "),
    (re.compile(r"√"), "\\sqrt "),
    (re.compile(r"≤"), "<="),
    (re.compile(r"≥"), ">="),
    (re.compile(r"≠"), "!="),
    (re.compile(r"±"), "\\pm "),
    (re.compile(r"∪"), "\\cup "),
    (re.compile(r"∅"), "\\emptyset "),
    (re.compile(r"\\left\s*\\?[.]|\\right\s*\\?[.]"), " "),
]
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+(?![\d.]))?)"
    r"|(?P<cmd>\\[a-zA-Z]+|\\[{}|\\])"
    r"|(?P<rate>(?:km|mi|ft|cm|mm|m)/(?:hr|h|min|sec|s)(?![a-zA-Z]))"
    r"|(?P<word>[a-zA-Z]+)"
    r"|(?P<text>@[^@]*@)"
    r"|(?P<op><=|>=|!=|\*\*|[-+*/^_=<>()\[\]{},;|&!'.:?])"
    r")"
)
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d,])")
_DECIMAL_COMMA = re.compile(r"(-?0),(\d+)|(-?\d|-?\d{4,}),(\d\d)")
"""One number with a decimal comma: `0,111`, `1,22`, `1000,99` (`1,2` and `12,14` are lists,
`1,222` a thousand)."""
_SPACED_THOUSANDS = re.compile(r"\d{1,3}(?: \d{3})+(?:\.\d+)?")
_TEXT = re.compile(r"\\(?:text|textrm|textup|mathrm|textnormal|mbox|textbf|mathbf)\s*\{([^{}]*)\}")


class _Fail(Exception):
    """The text is outside the grammar (or past a bound)."""


def _literal(replacement: str, _match: re.Match[str]) -> str:
    return replacement


def _text(match: re.Match[str]) -> str:
    """`\\text{...}`: numbers and signs are math; words are marked as text (units)."""
    inner = match.group(1).strip()
    letter = len(inner) == 1 and match.group(0).startswith("\\math")  # \\mathrm{e}
    if not inner or letter or re.fullmatch(r"[-+\d.,/ ]+", inner) or inner in ("or", "and"):
        return f" {inner} "
    return f" @{inner.replace('@', ' ')}@ "


def _normalize(text: str) -> str:
    text = text.strip()
    if "\\begin" not in text:  # `\\\\frac`: a doubly escaped command, as JSON-escaped text has
        text = re.sub(r"\\\\(?=[a-zA-Z])", functools.partial(_literal, "\\"), text)
    for pattern, replacement in _REPLACEMENTS:
        text = pattern.sub(functools.partial(_literal, replacement), text)
    text = _TEXT.sub(_text, text).strip().rstrip(".").strip()
    if comma := _DECIMAL_COMMA.fullmatch(text):
        whole, fraction = (comma.group(1), comma.group(2)) if comma.group(1) else comma.groups()[2:]
        text = f"{whole}.{fraction}"
    elif not re.search(r"[(\[{]", text):
        text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    if _SPACED_THOUSANDS.fullmatch(text):
        text = text.replace(" ", "")
    return text


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position, end = 0, len(text)
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            if text[position:].strip() == "":
                break
            raise _Fail(f"unexpected {text[position]!r}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        position = match.end()
        if kind == "cmd" and value in _IGNORED_COMMANDS:
            continue
        tokens.append((kind, value))
        if len(tokens) > MAX_TOKENS:
            raise _Fail("too long")
    return tokens


def parse_answer(text: str) -> Node | None:
    """The answer in `text` as a tree, or None when it is not one we can read.

    Example:
        >>> parse_answer("\\\\frac{1}{2}")
        ('/', ('n', Fraction(1, 1)), ('n', Fraction(2, 1)))
        >>> parse_answer("x > 5")
        ('rel', [('s', 'x'), ('n', Fraction(5, 1))], ['>'])
    """
    if not text or len(text) > MAX_ANSWER:
        return None
    try:
        tokens = _tokens(_normalize(text))
        if not tokens:
            return None
        parser = _Parser(tokens)
        node = parser.answer()
        if parser.i != len(tokens):
            return None
        return node
    except (_Fail, RecursionError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _number(text: str) -> Node:
    mantissa, _, exponent = text.lower().partition("e")
    if exponent and abs(int(exponent)) > 400:
        raise _Fail("exponent too large")
    digits = len(mantissa.replace(".", "").lstrip("0"))
    if "." in mantissa and digits >= LONG_DECIMAL:  # a float printed whole: its own precision
        return ("n", Fraction(text), digits)
    return ("n", Fraction(text))


def _mixed(whole: Node, part: Node, token: tuple[str, str]) -> bool:
    """An integer directly followed by a proper `\\frac` of integers: a mixed number."""
    integer = whole[0] == "n" and whole[1].denominator == 1 and whole[1] >= 0
    if not (integer and token[1] == "\\frac" and part[0] == "/"):
        return False
    top, bottom = part[1], part[2]
    return bool(top[0] == "n" == bottom[0] and 0 < top[1] < bottom[1])


class _Parser:
    """Recursive descent over the tokens, with a depth bound."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.bars = 0  # open `|...|`: a `|` closes, it does not start a factor

    # -- helpers ---------------------------------------------------------------------
    def peek(self, offset: int = 0) -> tuple[str, str]:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token[0] == "end":
            raise _Fail("unexpected end")
        self.i += 1
        return token

    def accept(self, *values: str) -> str | None:
        if self.peek()[1] in values and self.peek()[0] != "end":
            return self.take()[1]
        return None

    def expect(self, value: str) -> None:
        if self.accept(value) is None:
            raise _Fail(f"expected {value!r}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail("too deep")

    # -- grammar ---------------------------------------------------------------------
    def answer(self) -> Node:
        """Items separated by `,` `or` `and` (a bare list), groups of them by `;`
        (`p=5, q=2; p=7, q=2`), or one item."""
        groups = [self.items()]
        while self.accept(";"):
            if self.peek()[0] == "end":
                break
            groups.append(self.items())
        return groups[0] if len(groups) == 1 else ("list", groups, ";")

    def items(self) -> Node:
        items = [self.item()]
        joiner = ","
        while True:
            sep = self.peek()
            if sep[1] == "," or (sep[0] == "word" and sep[1].lower() in ("or", "and")):
                self.take()
                if sep[1] == "," and self.peek()[1].lower() in ("or", "and"):
                    sep = self.take()  # "1, 2, and 3"
                if sep[1].lower() == "or":
                    joiner = "or"
                if self.peek()[0] == "end":
                    break
                items.append(self.item())
            else:
                break
        return items[0] if len(items) == 1 else ("list", items, joiner)

    def item(self) -> Node:
        """A relation chain, or a union of intervals/sets."""
        sides = [self.union()]
        ops: list[str] = []
        while (kind_value := self.peek())[1] in _RELATIONS:
            self.take()
            if kind_value[1] == "\\approx" and ops:  # x = 1/3 ≈ 0.33: then a rounding
                self.union()
                continue
            ops.append(_RELATIONS[kind_value[1]])
            sides.append(self.union())
        if self.peek()[1] == "\\in" and len(sides) == 1:
            self.take()
            return ("rel", [sides[0], self.union()], ["in"])
        return sides[0] if not ops else ("rel", sides, ops)

    def union(self) -> Node:
        parts = [self.expr()]
        while self.accept("\\cup", "U"):
            parts.append(self.expr())
        return parts[0] if len(parts) == 1 else ("union", parts)

    def expr(self) -> Node:
        self.enter()
        terms: list[Node] = []
        sign = self.accept("+", "-", "\\pm", "\\mp")
        term = self.term()
        pm: Node | None = None
        if sign == "-":
            term = ("neg", term)
        elif sign in ("\\pm", "\\mp"):
            pm, term = term, ("n", Fraction(0))
        terms.append(term)
        while (op := self.accept("+", "-", "\\pm", "\\mp")) is not None:
            nxt = self.term()
            if op in ("\\pm", "\\mp"):
                if pm is not None:
                    raise _Fail("two ±")
                pm = nxt
            else:
                terms.append(nxt if op == "+" else ("neg", nxt))
        self.depth -= 1
        base = terms[0] if len(terms) == 1 else ("+", terms)
        return ("pm", base, pm) if pm is not None else base

    def term(self) -> Node:
        factors = [self.unary()]
        while True:
            token = self.peek()
            if token[1] in _TIMES:
                self.take()
                factors.append(self.unary())
            elif token[1] in ("/", "\\div"):
                self.take()
                factors[-1] = ("/", factors[-1], self.unary())
            elif self.starts_atom(token):
                factor = self.power()
                if _mixed(factors[-1], factor, token):  # 2\frac{1}{2} is 2 + 1/2
                    factors[-1] = ("+", [factors[-1], factor])
                else:
                    factors.append(factor)
            else:
                break
        words: list[str] = []
        while len(factors) > 1 and factors[-1][0] == "text":
            words.insert(0, factors.pop()[1])
        if len(factors) > 1 and any(factor[0] == "text" for factor in factors):
            raise _Fail("words inside an expression")
        product = factors[0] if len(factors) == 1 else ("*", factors)
        return ("unit", product, " ".join(words)) if words else product

    def unary(self) -> Node:
        if self.accept("-"):
            return ("neg", self.unary())
        if self.accept("+"):
            return self.unary()
        return self.power()

    def starts_atom(self, token: tuple[str, str]) -> bool:
        kind, value = token
        if kind in ("num", "word", "text", "rate"):
            return not (kind == "word" and value.lower() in ("or", "and"))
        if kind == "cmd":
            return value not in _RELATIONS and value not in _NOT_ATOMS
        return value in ("(", "[", "{") or (value == "|" and not self.bars)

    def power(self) -> Node:
        self.enter()
        base = self.postfix(self.atom())
        if self.accept("^", "**"):
            exponent = self.exponent()
            if base[0] == "text":  # m^2: a unit
                power = exponent[1] if exponent[0] == "n" else "?"
                return ("text", f"{base[1]}^{power}")
            base = self.postfix(("^", base, exponent))
        self.depth -= 1
        return base

    def exponent(self) -> Node:
        if self.peek()[1] == "{":
            return self.group()
        if self.accept("-"):
            return ("neg", self.exponent())
        return self.atom()

    def postfix(self, node: Node) -> Node:
        while True:
            if self.accept("\\percent"):
                node = ("pct", node)
            elif self.accept("\\degree"):
                node = ("deg", node)
            elif self.peek()[1] == "!" and self.peek(1)[1] != "=":
                self.take()
                node = ("f", "factorial", node)
            elif self.peek()[1] == "_":
                self.take()
                sub = self.take() if self.peek()[1] != "{" else ("grp", self.raw_group())
                if node[0] != "s":
                    raise _Fail("subscript on a non-symbol")
                node = ("s", f"{node[1]}_{sub[1]}")
            elif self.peek()[1] == "'":
                self.take()
                if node[0] != "s":
                    raise _Fail("prime on a non-symbol")
                node = ("s", node[1] + "'")
            else:
                return node

    def raw_group(self) -> str:
        """The tokens of a `{...}` group as text (subscripts: `a_{37}`)."""
        self.expect("{")
        parts: list[str] = []
        depth = 1
        while True:
            value = self.take()[1]
            if value == "{":
                depth += 1
            elif value == "}":
                depth -= 1
                if depth == 0:
                    return "".join(parts)
            parts.append(value)

    def group(self) -> Node:
        """`{...}`: an expression (or a list) in braces."""
        self.expect("{")
        if self.accept("}"):
            raise _Fail("empty group")
        node = self.answer()
        self.expect("}")
        return node

    def arg(self) -> Node:
        """A command's argument: `{...}`, or one token (`\\frac12`, `\\sqrt2`)."""
        if self.peek()[1] == "{":
            return self.group()
        kind, value = self.take()
        if kind == "num":
            if len(value) > 1 and value[1].isdigit():  # \frac12: one digit each
                self.tokens.insert(self.i, ("num", value[1:]))
                value = value[0]
            return ("n", Fraction(value))
        if kind == "word":
            return self.word_symbol(value[0], value[1:])
        if kind == "cmd":
            self.i -= 1
            return self.atom()
        raise _Fail("bad argument")

    def word_symbol(self, first: str, rest: str) -> Node:
        if rest:  # `\frac ab`: the rest of the word is read next
            self.tokens.insert(self.i, ("word", rest))
        return ("s", first) if first not in "ei" else ("c", first)

    def atom(self) -> Node:
        self.enter()
        node = self._atom()
        self.depth -= 1
        return node

    def _atom(self) -> Node:
        kind, value = self.take()
        if kind == "num":
            return _number(value)
        if kind == "word":
            return self.word(value)
        if kind in ("text", "rate"):
            return ("text", value.strip("@").strip())
        if kind == "cmd":
            return self.command(value)
        if value in ("(", "["):
            return self.bracketed(value)
        if value == "{":
            self.i -= 1
            return self.group()
        if value == "|":
            self.bars += 1
            inner = self.expr()
            self.expect("|")
            self.bars -= 1
            return ("f", "abs", inner)
        raise _Fail(f"unexpected {value!r}")

    def bracketed(self, opening: str) -> Node:
        if self.peek()[1] in (")", "]"):
            raise _Fail("empty brackets")
        first = self.answer()
        closing = self.accept(")", "]")
        if closing is None:
            raise _Fail("unclosed bracket")
        if first[0] == "list" and first[2] != "or":
            return ("tuple", first[1], opening, closing)
        if first[0] == "matrix":  # \\left[\\begin{array}...\\end{array}\\right]
            return first
        if opening != "(" or closing != ")":
            raise _Fail("mismatched brackets")
        return first

    def word(self, value: str) -> Node:
        lower = value.lower()
        if lower in _FUNCTIONS:
            return ("f", lower, self.function_arg())
        if lower in _CONSTANTS:
            return ("c", _CONSTANTS[lower])
        if lower in _NUMBER_WORDS and len(value) > 1:
            return ("n", Fraction(_NUMBER_WORDS[lower]))
        if len(value) == 1:
            return ("c", value) if value in "ei" else ("s", value)
        return ("text", value)

    def function_arg(self) -> Node:
        if self.accept("^"):
            power = self.exponent()
            return ("fpow", power, self.function_arg())
        if self.peek()[1] == "_":  # \log_2 x
            self.take()
            base = self.arg()
            return ("logbase", base, self.function_arg())
        if self.peek()[1] in ("(", "{"):
            return self.atom()
        return self.power()

    def command(self, value: str) -> Node:
        name = value[1:]
        if name == "frac" or name == "over":
            return ("/", self.arg(), self.arg())
        if name == "binom":
            return ("f", "binom", ("tuple", [self.arg(), self.arg()], "(", ")"))
        if name == "sqrt":
            if self.accept("["):
                index = self.expr()
                self.expect("]")
                return ("^", self.arg(), ("/", ("n", Fraction(1)), index))
            return ("f", "sqrt", self.arg())
        if name in _FUNCTIONS or name in ("arcsin", "arccos", "arctan"):
            node = self.function_arg()
            if node[0] == "fpow":
                return ("^", ("f", name, node[2]), node[1])
            if node[0] == "logbase":
                return ("/", ("f", "ln", node[2]), ("f", "ln", node[1]))
            return ("f", name, node)
        if name in _CONSTANTS:
            return ("c", _CONSTANTS[name])
        if name in _SYMBOL_COMMANDS:
            return ("s", name)
        if name in ("emptyset", "varnothing"):
            return ("set", [])
        if value == "\\{":
            if self.accept("\\}"):
                return ("set", [])
            inner = self.answer()
            self.expect("\\}")
            return ("set", inner[1] if inner[0] == "list" else [inner])
        if name in ("lvert", "vert", "lVert"):
            inner = self.expr()
            if self.accept("\\rvert", "\\vert", "\\rVert", "|") is None:
                raise _Fail("unclosed |")
            return ("f", "abs", inner)
        if name in ("lfloor", "lceil"):
            inner = self.expr()
            self.take()
            return ("f", name[1:], inner)
        if name == "begin":
            return self.matrix()
        if name in ("text", "textrm", "mathrm", "textbf", "mathbf"):
            return self.group()
        raise _Fail(f"unknown command {value}")

    def matrix(self) -> Node:
        env = self.raw_group()
        if env not in ("pmatrix", "bmatrix", "matrix", "Bmatrix", "smallmatrix", "array"):
            raise _Fail(f"environment {env}")
        if env == "array" and self.peek()[1] == "{":
            self.raw_group()
        rows: list[list[Node]] = [[]]
        while True:
            if self.peek()[1] == "\\end":
                self.take()
                if self.raw_group() != env:
                    raise _Fail("mismatched \\end")
                break
            rows[-1].append(self.expr())
            if self.accept("&"):
                continue
            if self.accept("\\\\"):
                if self.peek()[1] != "\\end":
                    rows.append([])
                continue
            if self.peek()[1] != "\\end":
                raise _Fail("bad matrix")
        if len({len(row) for row in rows}) != 1:
            raise _Fail("ragged matrix")
        return ("matrix", rows)
