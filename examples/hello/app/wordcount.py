"""The agent's solution: count words in input.txt and write the result."""

import json
from collections import Counter
from pathlib import Path

words = Path("input.txt").read_text().split()
counts = Counter(w.lower().strip(".,") for w in words)
Path("result.json").write_text(json.dumps({"words": len(words), "top": counts.most_common(1)[0][0]}))
print(len(words))
