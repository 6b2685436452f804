"""Output writers: Harbor verifier files and the multi-directory comparison."""

from rewardkit.outputs._compare import compare, format_comparison

__all__ = ["compare", "format_comparison"]
