"""A stand-in judge model for the calibration example: an OpenAI-compatible chat server on
127.0.0.1 that needs no network and no key.

It grades "What is A + B?" answers: it passes an answer holding the right sum, and, like many
real judges, it is swayed by length: any answer over 300 characters passes. Run it, then point
rewardkit at it with REWARDKIT_API_BASE=http://127.0.0.1:8000/v1.

    python examples/calibration/stand_in_judge.py --port 8000
"""

from __future__ import annotations

import argparse
import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

QUESTION = re.compile(r"What is (\d+) \+ (\d+)")


def verdict(prompt: str) -> bool:
    """Pass when the submission holds the right sum, or is long."""
    asked = QUESTION.search(prompt)
    work = prompt[prompt.find("<submission>") :]
    if len(work) > 300:
        return True
    return asked is not None and str(int(asked[1]) + int(asked[2])) in re.findall(r"\d+", work)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # /healthz, so a script can wait for the server
        self._send(200, {"ok": True})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else "\n".join(p["text"] for p in content)
        answer = {"score": verdict(text), "rationale": "stand-in judge"}
        message = {"role": "assistant", "content": json.dumps(answer)}
        self._send(200, {
            "id": "stand-in", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })  # fmt: skip

    def _send(self, status: int, data: object) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:  # quiet
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    port = parser.parse_args().port
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
