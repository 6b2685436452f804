"""The harness of a `python` grader: the main file of the jailed program.

It runs *inside* the jail, on the standard library alone: it reads `input.json`
(`{"sample": ..., "item": ...}`), runs `grader.py` (the grader's `source`), calls
`grade(sample, item)` and writes `{"score": ...}` or `{"error": ...}` as the last line on
descriptor 3. The grader's own prints go to stdout and are not read.
"""

import json
import os


def _report(record: dict[str, object]) -> None:
    os.write(3, (json.dumps(record) + "\n").encode())


def _main() -> None:
    with open("input.json", encoding="utf-8") as given:
        data = json.load(given)
    with open("grader.py", encoding="utf-8") as text:
        code = compile(text.read(), "grader.py", "exec")
    namespace = {"__name__": "grader"}
    try:
        exec(code, namespace)
        grade = namespace.get("grade")
        if not callable(grade):
            _report({"error": "the source defines no function grade(sample, item)"})
            return
        value = grade(data["sample"], data["item"])
    except Exception as exc:
        _report({"error": f"grade raised {type(exc).__name__}: {exc}"})
        return
    if type(value) not in (int, float, bool):
        shown = f"{type(value).__name__} {str(value)[:60]!r}"
        _report({"error": f"grade returned {shown}, not a number"})
        return
    _report({"score": float(value)})


if __name__ == "__main__":
    _main()
