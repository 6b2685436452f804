"""A code judge: score how well the transcript shows its work, on a 1-5 scale."""

STEP_WORDS = ("first", "then", "so", "therefore", "=")


def explanation_score(outputs, **arguments):
    transcript = (outputs.get("stdout") or "").lower()
    steps = sum(transcript.count(word) for word in STEP_WORDS)
    score = min(5, 1 + steps)
    return score, f"{steps} step markers in the transcript"
