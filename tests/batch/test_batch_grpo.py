"""Real trainers and kernels: a TRL `GRPOTrainer` run, and the sync adapter in a Jupyter kernel.

Skipped unless `trl` and `torch` (`pip install 'rewardkit[trl]'`), or `nbclient` and
`ipykernel`, are installed. Nothing is downloaded: the model and tokenizer are built here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk


@rk.reward_function
def digits(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> float:
    text = messages[-1]["content"]
    return sum(c.isdigit() for c in text) / max(len(text), 1)


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"].strip() == ground_truth)


def _tiny_model_and_tokenizer() -> tuple[Any, Any]:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    symbols = ["<pad>", "<eos>", "<unk>", *"0123456789+=? abcdefghijklmnopqrstuvwxyz"]
    core = Tokenizer(models.WordLevel({s: i for i, s in enumerate(symbols)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    core.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>"
    )
    config = Qwen2Config(
        vocab_size=len(symbols),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=1,
    )
    return Qwen2ForCausalLM(config), tokenizer


@pytest.mark.filterwarnings("ignore")  # torch, transformers and trl warn about their own things
def test_grpo_trainer_trains_on_a_rewardkit_reward(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    trl = pytest.importorskip("trl")
    from datasets import Dataset

    model, tokenizer = _tiny_model_and_tokenizer()
    dataset = Dataset.from_dict(
        {
            "prompt": ["1+1=", "2+2=", "3+3=", "4+4="] * 2,
            "ground_truth": ["2", "4", "6", "8"] * 2,
            "level": ["easy"] * 8,
        }
    )
    scorer = rk.load({"digits": digits, "exact": exact})
    reward = scorer.trl_reward_func(name="rk")
    args = trl.GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=6,
        max_steps=2,
        logging_steps=1,
        learning_rate=1e-3,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        bf16=False,
    )
    trainer = trl.GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[reward],
        args=args,
        train_dataset=dataset,
    )
    trainer.train()
    logs = [entry for entry in trainer.state.log_history if "loss" in entry]
    assert len(logs) == 2
    assert all("rewards/rk/mean" in entry for entry in logs)
    assert all("rk/digits" in entry and "rk/invalid" in entry for entry in logs)
    assert all(entry["rk/invalid"] == 0.0 for entry in logs)


def test_the_sync_adapter_in_a_jupyter_kernel(tmp_path: Path) -> None:
    """A kernel runs an event loop in the cell's thread; the adapter must not need its own."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    cells = [
        "import asyncio\nasyncio.get_running_loop()  # the kernel's loop runs here",
        "import rewardkit as rk\n"
        "@rk.reward_function\n"
        "def exact(messages, ground_truth=None, **kwargs):\n"
        "    return messages[-1]['content'] == ground_truth\n"
        "scorer = rk.load([exact])\n"
        "f = scorer.trl_reward_func()\n"
        "print(f(prompts=['q', 'q'], completions=['4', '5'], ground_truth=['4', '4']))\n"
        "print(scorer.verl_compute_score()('s', '4', '4'))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(
        notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = notebook.cells[1].outputs
    assert [o.get("text") for o in outputs] == ["[1.0, 0.0]\n1.0\n"]
