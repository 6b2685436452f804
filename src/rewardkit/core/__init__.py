"""The words every room shares: `Outcome`, the `Plan`, the exceptions, the message and
result types, confined and capped reads of untrusted data, atomic writes, lazy names.

Nothing here imports another rewardkit package.
"""
