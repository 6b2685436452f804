"""Output writers: Harbor verifier files and the multi-directory comparison."""

from rewardkit.outputs._compare import ComparisonResult, compare, format_comparison

__all__ = ["ComparisonResult", "compare", "format_comparison"]
