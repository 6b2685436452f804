"""OpenAI's grader JSON (evals, reinforcement fine-tuning) as a rewardkit reward.

`load_reward("grader.json")` reads a `string_check`, `text_similarity`, `score_model`,
`label_model`, `python` or `multi` grader into a reward function; `rewardkit.load`, `rewardkit
score --config` and `rewardkit check` take the file itself. docs/openai-graders.md has the
field-by-field table.
"""

from rewardkit.graders._grade import Grader
from rewardkit.graders._input import GraderInput, grader_input
from rewardkit.graders._load import GRADER_TYPES, load_grader
from rewardkit.graders._plan import describe_grader, grader_data
from rewardkit.graders._reward import GraderReward, load_reward

__all__ = [
    "GRADER_TYPES",
    "Grader",
    "GraderInput",
    "GraderReward",
    "describe_grader",
    "grader_data",
    "grader_input",
    "load_grader",
    "load_reward",
]
