"""Defines plain helpers and registers no criterion, so it is not an input."""


def normalise(text: str) -> str:
    return text.strip().lower()
