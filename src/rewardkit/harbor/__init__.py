"""The Harbor front door: a `tests/` directory (Python criteria files, judge TOMLs,
`reward.toml`) compiled into a `Plan`, run by `rewardkit.run` / `run_multi`, written as
`reward.json` and `reward-details.json`; the bridge scores a workspace with a tests
directory's eval.yaml.
"""
