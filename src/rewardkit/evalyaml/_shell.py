"""What a plain read command reads: the files of a `cat`, `sed`, `head` or `tail` an agent
ran (a transcript's `read_paths`, see `_events`)."""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

__all__ = ["command_reads"]

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_REDIRECT = re.compile(r"(\d*|&)(>>?|<)")
"""A redirection, alone (`2>`, then its target) or joined to its target (`2>/dev/null`)."""


def command_reads(command: str) -> list[str]:
    """The files a plain `cat`, `sed`, `head` or `tail` command reads ([] for any other).

    Deliberately narrow, as the harness is: a `bash -c` wrapper is opened, redirections are
    dropped, and a pipeline, a list of commands, a substitution or an unparsable quote reads
    nothing.
    """
    words = _words(command)
    if words and PurePosixPath(words[0]).name in _SHELLS:
        if not any(w.startswith("-") and "c" in w for w in words[1:-1]):
            return []
        words = _words(words[-1])
    if any("$(" in w or "`" in w or w.startswith(("<(", ">(")) for w in words):
        return []
    words = _without_redirections(words)
    if not words or any(c in w for w in words for c in "|;&"):
        return []
    program, args = PurePosixPath(words[0]).name, words[1:]
    if program == "cat":
        return [w for w in args if w and not w.startswith("-")]
    if program == "sed":
        return _sed_files(args)
    if program in ("head", "tail"):
        return _operands(args, takes_value=("-n", "--lines", "-c", "--bytes"))
    return []


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # an unclosed quote or a trailing escape
        return []


def _without_redirections(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif found := _REDIRECT.match(word):
            skip = found.end() == len(word)  # alone: its target is the next word
        else:
            kept.append(word)
    return kept


def _operands(args: list[str], takes_value: tuple[str, ...]) -> list[str]:
    """The words of `args` that are not options (nor an option's value)."""
    operands: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif not word.startswith("-"):
            operands.append(word)
    return operands


def _sed_files(args: list[str]) -> list[str]:
    """`sed`'s input files: its operands after the script (none is the script with `-e`),
    and a script file (`-f`) too."""
    files: list[str] = []
    script = False
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
        elif word in ("-e", "--expression", "-f", "--file"):
            script = skip = True
            if word in ("-f", "--file") and i + 1 < len(args):
                files.append(args[i + 1])
        elif word.startswith("-"):
            continue
        elif script:
            files.append(word)
        else:
            script = True
    return files
