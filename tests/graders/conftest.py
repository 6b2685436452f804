"""The OpenAI grader tests reuse the LLM tests' real chat server (`tests/llm/server.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
