"""Judge kinds that any format can use: the LLM judge, the agent judge (`claude-code`,
`codex`, `fx`) and the JEV judge, over one data model.

A `JudgeDefinition` (built from a Harbor judge TOML by `rewardkit.harbor`, or from an
eval.yaml judge's fields by `rewardkit.evalyaml`) says what to ask; `plan_requests` /
`build_request` turn it into chat requests, and `parse_reply` / `combine_samples` read the
replies back into per-criterion `Verdict`s. LLM judges run as `_llm.LLMJudge` through
`rewardkit.models.ModelClient`, agent judges as `_agent.AgentJudge` through their CLIs,
JEV judges as `_jev.JevJudge` through the `typesafe_sdk`; `TomlJudge` is the placeholder
for an agent name with no registered backend. `format_trajectory` renders an agent's
ATIF trajectory as text.

Names load on first use: start-up time is a feature.
"""

from typing import TYPE_CHECKING

from rewardkit.core._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.judges._definition import (
        AGENTS,
        DEFAULT_JUDGE,
        GUARD_NAME,
        CriterionDef,
        JudgeDefinition,
        McpServer,
        guard_criterion,
        slug,
    )
    from rewardkit.judges._inputs import MAX_BYTES, Block, path_blocks, paths_blocks, text_block
    from rewardkit.judges._parse import (
        ReplyError,
        Verdict,
        combine_samples,
        extract_json,
        guard_detail,
        guarded_score,
        parse_reply,
        score,
    )
    from rewardkit.judges._prompt import (
        JudgeRequest,
        build_request,
        criteria_block,
        fence,
        plan_requests,
        response_schema,
        system_prompt,
        user_content,
    )
    from rewardkit.judges._toml_judge import TomlJudge, criterion_extra, verdict_outcome
    from rewardkit.judges._trajectory import format_trajectory, render_trajectory
    from rewardkit.judges.formats import Binary, Format, Likert, Numeric, Rubric

_LAZY = {
    "AGENTS": "_definition",
    "Binary": "formats",
    "Block": "_inputs",
    "CriterionDef": "_definition",
    "DEFAULT_JUDGE": "_definition",
    "Format": "formats",
    "GUARD_NAME": "_definition",
    "JudgeDefinition": "_definition",
    "JudgeRequest": "_prompt",
    "Likert": "formats",
    "MAX_BYTES": "_inputs",
    "McpServer": "_definition",
    "Numeric": "formats",
    "ReplyError": "_parse",
    "Rubric": "formats",
    "TomlJudge": "_toml_judge",
    "Verdict": "_parse",
    "build_request": "_prompt",
    "combine_samples": "_parse",
    "criteria_block": "_prompt",
    "criterion_extra": "_toml_judge",
    "extract_json": "_parse",
    "fence": "_prompt",
    "format_trajectory": "_trajectory",
    "guard_criterion": "_definition",
    "guard_detail": "_parse",
    "guarded_score": "_parse",
    "parse_reply": "_parse",
    "path_blocks": "_inputs",
    "paths_blocks": "_inputs",
    "plan_requests": "_prompt",
    "render_trajectory": "_trajectory",
    "response_schema": "_prompt",
    "score": "_parse",
    "slug": "_definition",
    "system_prompt": "_prompt",
    "text_block": "_inputs",
    "user_content": "_prompt",
    "verdict_outcome": "_toml_judge",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "AGENTS",
    "DEFAULT_JUDGE",
    "GUARD_NAME",
    "MAX_BYTES",
    "Binary",
    "Block",
    "CriterionDef",
    "Format",
    "JudgeDefinition",
    "JudgeRequest",
    "Likert",
    "McpServer",
    "Numeric",
    "ReplyError",
    "Rubric",
    "TomlJudge",
    "Verdict",
    "build_request",
    "combine_samples",
    "criteria_block",
    "criterion_extra",
    "extract_json",
    "fence",
    "format_trajectory",
    "guard_criterion",
    "guard_detail",
    "guarded_score",
    "parse_reply",
    "path_blocks",
    "paths_blocks",
    "plan_requests",
    "render_trajectory",
    "response_schema",
    "score",
    "slug",
    "system_prompt",
    "text_block",
    "user_content",
    "verdict_outcome",
]
