"""Provider batch APIs (OpenAI Batch, Anthropic Message Batches) for offline runs.

`run_batched` drives a run through them (collect, submit, wait, fold back in); the model
client's side is `_hook`. Only the hook is imported with the client: the rest loads when a
batch run starts.
"""

from rewardkit.models.batches._hook import ANSWERS_ENV, COLLECT_ENV, BatchHook, Deferred

__all__ = ["ANSWERS_ENV", "COLLECT_ENV", "BatchHook", "Deferred"]
