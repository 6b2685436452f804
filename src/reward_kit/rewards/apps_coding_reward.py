"""`reward_kit.rewards.apps_coding_reward`: APPS test-case reward, from rewardkit.

`_extract_python_code` keeps its reward-kit name; it is `extract_python_code`.
"""

from rewardkit.functions.builtin import evaluate_apps_solution
from rewardkit.functions.builtin.code._apps import extract_python_code

_extract_python_code = extract_python_code

__all__ = ["evaluate_apps_solution", "extract_python_code"]
