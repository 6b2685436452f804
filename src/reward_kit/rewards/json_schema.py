"""`reward_kit.rewards.json_schema`: the JSON Schema reward, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import json_schema_reward, json_schema_reward_with_llm_judge

__all__ = ["json_schema_reward", "json_schema_reward_with_llm_judge"]
