"""The eval.yaml front door (agent-eval-harness): the suite and its judges (`_suite`,
`_judges`, `_judge_fields`), the case records (`_cases`, `_case_files`, `_events`, `_runs`),
the judges only eval.yaml has (code, `check`, `builtin`, its LLM, agent and `pairwise`
judges), scoring cases in chunks (`_score`), and `rewardkit eval`'s outputs
(`cases.jsonl`, `summary.json`/`.yaml`).
"""
