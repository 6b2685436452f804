"""The math family: `math_reward` and its answer engine (the final answer `_final`, parsed
`_parse`, valued `_value`, compared `_equal`; math-verify in a worker `_symbolic`), and the
rewards built on it: `accuracy_reward`, `exact_match_reward`, multiple choice, number lists,
accuracy-then-length.
"""
