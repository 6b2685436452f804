"""The exceptions rewardkit raises.

```
RewardKitError
├── ConfigError(RewardKitError, ValueError)   a tests dir / TOML / eval.yaml is wrong
│   ├── DiscoveryError                        the tests directory's layout is wrong
│   └── FormulaError                          a reward formula or `if:` condition is unsafe
├── UntrustedInputError(RewardKitError, ValueError)  what the agent wrote is refused (data)
│   ├── OutsideWorkspace                      a path leads out of the workspace
│   └── CapExceeded                           a size, depth or count cap was hit
├── CriterionError                            a criterion failed while scoring (kept as data)
├── RewardFunctionError(RewardKitError, TypeError, ValueError)  a @reward_function's input
│                                             or return value is malformed
└── JudgeError                                a judge's model call failed after retries (data)
    ├── JudgeTimeout(JudgeError, TimeoutError)  no reply within the timeout
    ├── JudgeUnavailable                      5xx / connection errors outlasted the retries
    │   └── JudgeRateLimited                  429s outlasted the retries or the budget
    ├── JudgeAuthError                        401/403: the credentials were refused
    ├── JudgeRequestError(JudgeError, ValueError)  400/404/422: bad request, unknown model
    └── JudgeBadReply(JudgeError, ValueError)  no parsable reply in the allowed calls
```

Config errors are raised before anything runs and always name the file (and key) plus the
fix. A `CriterionError` never aborts a run: the engine records it as an outcome with
`status: error` and keeps the user's exception as `__cause__`. A `JudgeError` does not
abort a run either: it becomes a `timeout` (`JudgeTimeout`) or `error` outcome whose reason
is the message, which names the model and never contains an API key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import traceback

    from rewardkit.models._usage import Usage

__all__ = [
    "CapExceeded",
    "ConfigError",
    "CriterionError",
    "DiscoveryError",
    "FormulaError",
    "JudgeAuthError",
    "JudgeBadReply",
    "JudgeError",
    "JudgeRateLimited",
    "JudgeRequestError",
    "JudgeTimeout",
    "JudgeUnavailable",
    "OutsideWorkspace",
    "RewardFunctionError",
    "RewardKitError",
    "UntrustedInputError",
    "describe_exception",
    "did_you_mean",
    "for_terminal",
    "raise_all",
]


class RewardKitError(Exception):
    """Root of every error rewardkit raises on purpose."""


class ConfigError(RewardKitError, ValueError):
    """A configuration file or argument is invalid.

    Attributes:
        path: the file at fault, when there is one.
        key: the key or line within it, when known.
    """

    def __init__(self, message: str, *, path: Path | str | None = None, key: str | None = None):
        self.path = Path(path) if path is not None else None
        self.key = key
        where = f"{self.path}: " if self.path is not None else ""
        if key is not None:
            where = f"{where}{key}: "
        super().__init__(f"{where}{message}")


class DiscoveryError(ConfigError):
    """The tests directory cannot be turned into a plan.

    Attributes:
        errors: every problem found, when discovery collected several at once.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        key: str | None = None,
        errors: list[ConfigError] | None = None,
    ):
        super().__init__(message, path=path, key=key)
        self.errors = errors or [self]


class FormulaError(ConfigError):
    """An expression (a `reward.formula` or a judge's `if:`) does not compile.

    Raised at load, never while scoring: the message names the construct that is not
    allowed and where it is, e.g. `'**' is not allowed (line 1, col 7); write x * x instead`.

    Attributes:
        line: the 1-based line of the expression at fault, when known.
        col: the 1-based column within that line, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        key: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ):
        super().__init__(message, path=path, key=key)
        self.line = line
        self.col = col


def raise_all(errors: list[ConfigError]) -> None:
    """Raise nothing, the one error, or a `DiscoveryError` listing them all."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        lines = "\n".join(f"  - {e}" for e in errors)
        raise DiscoveryError(f"{len(errors)} configuration errors:\n{lines}", errors=errors)


class UntrustedInputError(RewardKitError, ValueError):
    """Untrusted input (the workspace, a case, a rollout) was refused; recorded, never fatal."""


class OutsideWorkspace(UntrustedInputError):
    """A path names something outside the workspace (through `..`, a symlink or a swap)."""


class CapExceeded(UntrustedInputError):
    """Untrusted input is over a cap (bytes, depth, values, pixels); the message names it."""


class CriterionError(RewardKitError):
    """A criterion raised or returned something unusable; recorded, never fatal."""


class RewardFunctionError(RewardKitError, TypeError, ValueError):
    """A `@reward_function` got malformed messages or returned something that is no result.

    A `TypeError` for rewardkit code, a `ValueError` for code written for reward-kit 0.4.1.
    """


class JudgeError(RewardKitError):
    """A judge's model call failed after every retry allowed; recorded, never fatal.

    Attributes:
        model: the model that was asked, e.g. `openai/gpt-4o`.
        attempts: how many calls were made to the model for this request.
        usage: tokens and cost spent on the failed calls (a `Usage`), when any.
        status: the last HTTP status the provider answered with, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        attempts: int = 0,
        usage: Usage | None = None,
        status: int | None = None,
    ):
        super().__init__(message)
        self.model = model
        self.attempts = attempts
        self.usage = usage
        self.status = status


class JudgeTimeout(JudgeError, TimeoutError):
    """The model did not answer within the judge's timeout, on every attempt allowed."""


class JudgeUnavailable(JudgeError):
    """Transient failures (5xx, connection resets) outlasted the retries or their budget."""


class JudgeRateLimited(JudgeUnavailable):
    """The provider kept answering 429 (rate limited) until the retries ran out."""


class JudgeAuthError(JudgeError):
    """The provider refused the credentials (401/403); retrying cannot help."""


class JudgeRequestError(JudgeError, ValueError):
    """The provider rejected the request itself (400/404/422, e.g. an unknown model)."""


class JudgeBadReply(JudgeError, ValueError):
    """No reply could be parsed in the calls allowed.

    Attributes:
        reply: the start of the last reply (at most 200 characters).
    """

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        attempts: int = 0,
        usage: Usage | None = None,
        status: int | None = None,
        reply: str = "",
    ):
        super().__init__(message, model=model, attempts=attempts, usage=usage, status=status)
        self.reply = reply


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ` Did you mean 'x'?` for the closest choice, or an empty string."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


MESSAGE_CHARS = 2_000
"""The most of an exception's message an error keeps (it may quote what the agent wrote)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def for_terminal(text: str, limit: int | None = None) -> str:
    """`text` safe to print: control characters (a terminal's escape sequences) shown as `?`,
    line breaks and tabs as spaces, and, with `limit`, cut to that many characters."""
    text = _CONTROL.sub("?", text.replace("\n", " ").replace("\t", " "))
    if limit is not None and len(text) > limit:
        text = f"{text[: limit - 1]}…"
    return text


def describe_exception(exc: BaseException, source: Path | None = None) -> str:
    """`Type: message (file:line)`, pointing at the deepest frame in `source` if any, and at
    the user's own code under it (`(helper.py:1, from checks.py:2)`); never at importlib's
    frozen frames, and at the offending line of a file that does not parse."""
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f"{type(exc).__name__}: {exc.msg} ({Path(exc.filename).name}:{exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    text = str(exc) or type(exc).__name__
    if len(text) > MESSAGE_CHARS:
        text = f"{text[:MESSAGE_CHARS]}… ({len(text) - MESSAGE_CHARS:,} more characters)"
    message = f"{type(exc).__name__}: {text}"
    if not frames:
        return message
    if source is not None:
        own = [f for f in frames if Path(f.filename).resolve() == source.resolve()]
        if own:
            deeper = frames[frames.index(own[-1]) + 1 :]
            theirs = [f for f in deeper if _users(f.filename)]
            if theirs:
                return f"{message} ({_at(theirs[-1])}, from {_at(own[-1])})"
            return f"{message} ({_at(own[-1])})"
    return f"{message} ({_at(frames[-1])})"


def _at(frame: traceback.FrameSummary) -> str:
    return f"{Path(frame.filename).name}:{frame.lineno}"


def _users(filename: str) -> bool:
    """True for a file of the user's: not rewardkit's, the standard library's or a package's."""
    import sys

    path = Path(filename).resolve()
    ours = Path(__file__).resolve().parents[1]  # the rewardkit package
    installed = (Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve())
    return not path.is_relative_to(ours) and not any(path.is_relative_to(p) for p in installed)
