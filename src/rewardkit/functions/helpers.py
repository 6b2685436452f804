"""The pieces the built-in reward functions are made of, for reuse in your own.

Answer extraction and comparison, token and n-gram counting, code extraction and
execution, tool-call matching. Public because reward-kit 0.4.1 code imports them from
`reward_kit.rewards.<module>`.

Example:
    >>> from rewardkit.functions.helpers import count_tokens
    >>> count_tokens("three small words")
    3
"""

from rewardkit.functions.builtin._answers import (
    compare_math_expressions,
    normalize_text,
    string_similarity,
)
from rewardkit.functions.builtin._answers import extract_answer as extract_math_expression
from rewardkit.functions.builtin.code._code import code_blocks as extract_code_blocks
from rewardkit.functions.builtin.code._code import execute_javascript_code, execute_python_code
from rewardkit.functions.builtin.code._program_io import call_arguments, compare_outputs
from rewardkit.functions.builtin.math._numbers import compare_numbers, extract_numbers
from rewardkit.functions.builtin.text._length import count_tokens
from rewardkit.functions.builtin.text._repetition import get_ngrams
from rewardkit.functions.builtin.tools._call_schema import (
    calculate_jaccard_similarity,
    extract_schema_properties,
    match_function_call,
)

__all__ = [
    "calculate_jaccard_similarity",
    "call_arguments",
    "compare_math_expressions",
    "compare_numbers",
    "compare_outputs",
    "count_tokens",
    "execute_javascript_code",
    "execute_python_code",
    "extract_code_blocks",
    "extract_math_expression",
    "extract_numbers",
    "extract_schema_properties",
    "get_ngrams",
    "match_function_call",
    "normalize_text",
    "string_similarity",
]
