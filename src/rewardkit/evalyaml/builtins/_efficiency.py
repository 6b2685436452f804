"""`efficiency/` builtins: what the run cost.

`cost_budget` is the harness's (`reference/builtin-judges.md`); `turn_budget` is rewardkit's.
"""

from __future__ import annotations

from rewardkit.evalyaml.builtins._record import Record, Verdict, recorded

__all__ = ["cost_budget", "turn_budget"]


def cost_budget(outputs: Record, max_cost_usd: float = 1.0) -> Verdict:
    """Pass when `cost_usd` is at most `max_cost_usd`; fail when the case has no cost."""
    cost = outputs.get("cost_usd")
    if cost is None:
        return False, "No cost data available"
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        raise TypeError(f"cost_usd is {cost!r}, not a number (check run_result.json)")
    verb = "within" if cost <= max_cost_usd else "exceeds"
    return cost <= max_cost_usd, f"cost ${cost:.2f} {verb} budget ${max_cost_usd:.2f}"


def turn_budget(outputs: Record, max_turns: int) -> Verdict:
    """Pass when `num_turns` is at most `max_turns`; an error when not recorded."""
    turns = recorded(outputs, "num_turns", "run_result.json")
    if isinstance(turns, bool) or not isinstance(turns, int):
        return False, f"num_turns is {turns!r}, not an integer"
    return turns <= max_turns, f"{turns} turns vs budget {max_turns}"
