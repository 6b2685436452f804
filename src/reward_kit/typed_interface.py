"""reward-kit's `reward_kit.typed_interface`: the `@reward_function` decorator.

Example:
    >>> from reward_kit.typed_interface import reward_function
    >>> reward_function(lambda messages, **kwargs: 0.5)([]).score
    0.5
"""

from __future__ import annotations

from rewardkit.functions import reward_function

__all__ = ["reward_function"]
