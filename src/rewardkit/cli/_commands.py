"""The subcommands and what each does (`rewardkit --help`, completion scripts)."""

__all__ = ["SUBCOMMANDS"]

SUBCOMMANDS = {
    "eval": "score an eval.yaml suite over its cases -> summary.json / summary.yaml",
    "check": "validate a tests dir or an eval.yaml and print its plan; exit 2 on any problem",
    "score": "score a JSONL file of samples (RL rollouts) -> one result line per sample",
    "serve": "serve rewards over HTTP (POST /score)",
    "calibrate": "does a judge agree with people? agreement with 95% CIs -> calibration.json",
    "report": "report on a scored run (eval, Harbor job, results) -> table or report.html",
    "init": "write a starter project (harbor, eval or rl) and print the command to run it",
    "completion": "print a shell completion script (bash, zsh or fish)",
}
"""`rewardkit <name> --help` tells more; the default command scores Harbor tests dirs."""
