"""reward-kit's `reward_kit.reward_function` module: the `@reward_function` decorator.

reward-kit's `RewardFunction` class (local, remote and Fireworks-hosted calls) is not
provided; call the decorated function directly, or score it with rewardkit's engine.

Example:
    >>> from reward_kit.reward_function import reward_function
    >>> reward_function(lambda messages, **kwargs: True)([]).score
    1.0
"""

from __future__ import annotations

from rewardkit.functions import reward_function

__all__ = ["reward_function"]
