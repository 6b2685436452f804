"""Judges beyond `@criterion` checks: judge TOMLs of a tests dir, and eval.yaml judges.

A judge TOML loads into a `JudgeDefinition` (`load_definition`); `plan_requests` /
`build_request` turn it into chat requests, and `parse_reply` / `combine_samples` read the
replies back into per-criterion `Verdict`s. LLM judges run as `_llm.LLMJudge` through
`rewardkit.models.ModelClient`, agent judges as `_agent.AgentJudge` through their CLIs
(`claude-code`, `codex`, `fx`), JEV judges as `_jev.JevJudge` through the `typesafe_sdk`;
`TomlJudge` is the placeholder for an agent name with no registered backend. eval.yaml
code, `check`, `builtin` and LLM judges are `EvalJudge`s.

Names load on first use: an eval.yaml run needs `EvalJudge` only, and start-up time is a
feature.
"""

from typing import TYPE_CHECKING

from rewardkit._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.judges._config import EFFORTS, judge_kind, load_definition
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
    from rewardkit.judges._eval import EvalJudge, JudgeKind
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
    "EFFORTS": "_config",
    "EvalJudge": "_eval",
    "Format": "formats",
    "GUARD_NAME": "_definition",
    "JudgeDefinition": "_definition",
    "JudgeKind": "_eval",
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
    "judge_kind": "_config",
    "load_definition": "_config",
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
    "EFFORTS",
    "GUARD_NAME",
    "MAX_BYTES",
    "Binary",
    "Block",
    "CriterionDef",
    "EvalJudge",
    "Format",
    "JudgeDefinition",
    "JudgeKind",
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
    "judge_kind",
    "load_definition",
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
