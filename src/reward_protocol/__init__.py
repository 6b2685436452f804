"""`reward_protocol`: reward-kit 0.4.1's second name for `reward_kit`; the same objects.

Example:
    >>> import reward_kit, reward_protocol
    >>> reward_protocol.RewardFunction is reward_kit.RewardFunction
    True
"""

from reward_kit import *  # noqa: F403
from reward_kit import __all__, __version__, models, rewards  # noqa: F401
