"""`rewardkit completion bash|zsh|fish`: print a shell completion script.

The script is generated from the commands' own argparse parsers (`build_parser()` of each
`rewardkit.cli.<name>` in `SUBCOMMANDS`, and of `cli.verify` for the default command), so it
completes exactly what they accept: the subcommand names, each command's long options, the
`choices` of an option or argument, and file paths for every other value.
"""

from __future__ import annotations

import argparse
import re
import shlex
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

__all__ = ["SHELLS", "build_parser", "main"]

SHELLS = ("bash", "zsh", "fish")

_INSTALL = """\
install:
  bash  eval "$(rewardkit completion bash)"                   # in ~/.bashrc
  zsh   eval "$(rewardkit completion zsh)"                    # in ~/.zshrc, after compinit
        (or: rewardkit completion zsh > "${fpath[1]}/_rewardkit")
  fish  rewardkit completion fish > ~/.config/fish/completions/rewardkit.fish"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit completion",
        description="Print a completion script for SHELL: subcommands, options, their choices "
        "and file paths.",
        epilog=_INSTALL,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shell", choices=SHELLS, help="bash, zsh or fish")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    print(_RENDER[args.shell](_commands()), end="")
    return 0


@dataclass(frozen=True, kw_only=True)
class _Option:
    names: tuple[str, ...]
    """Its long spellings (`--out`); short ones are not completed."""
    help: str
    takes_value: bool
    choices: tuple[str, ...]
    repeats: bool
    """It may be given more than once (`action="append"` or `"count"`)."""


@dataclass(frozen=True, kw_only=True)
class _Argument:
    name: str
    choices: tuple[str, ...]
    nargs: str | int | None


@dataclass(frozen=True, kw_only=True)
class _Command:
    name: str
    """The subcommand, or `rewardkit` for the default command (tests directories)."""
    help: str
    options: tuple[_Option, ...]
    arguments: tuple[_Argument, ...]

    @property
    def valued(self) -> list[str]:
        """The long options that take a value (the next word is not an argument)."""
        return [name for option in self.options if option.takes_value for name in option.names]


def _commands() -> list[_Command]:
    """The default command, then each subcommand, read from their parsers."""
    from rewardkit.cli._commands import SUBCOMMANDS

    modules = {"rewardkit": ("verify", ""), **{n: (n, what) for n, what in SUBCOMMANDS.items()}}
    return [
        _read(name, what, import_module(f"rewardkit.cli.{module}").build_parser())
        for name, (module, what) in modules.items()
    ]


def _read(name: str, what: str, parser: argparse.ArgumentParser) -> _Command:
    options, arguments = [], []
    for action in parser._actions:  # argparse has no public way to list them
        if action.help == argparse.SUPPRESS:
            continue
        choices = tuple(str(choice) for choice in action.choices or ())
        if not action.option_strings:
            arguments.append(_Argument(name=action.dest, choices=choices, nargs=action.nargs))
        elif names := tuple(s for s in action.option_strings if s.startswith("--")):
            repeats = isinstance(action, argparse._AppendAction | argparse._CountAction)
            options.append(
                _Option(
                    names=names,
                    help=_summary(action.help),
                    takes_value=action.nargs != 0,
                    choices=choices,
                    repeats=repeats,
                )
            )
    return _Command(
        name=name, help=_summary(what), options=tuple(options), arguments=tuple(arguments)
    )


def _summary(text: str | None) -> str:
    """The help's first clause, without asides or characters that need quoting in a shell."""
    first = re.sub(r"\s*\([^()]*\)", "", re.split(r"[.;]\s", text or "")[0])
    head, colon, _ = first.partition(": ")
    first = head if colon and " " in head else first  # "How it counts: zero ..." -> the head
    plain = re.sub(r"[^\w\s,./=+<>’-]", "", first.replace("'", "’"))
    return textwrap.shorten(plain, 70, placeholder="...")


def _bash(commands: list[_Command]) -> str:
    default, *subcommands = commands
    names = [c.name for c in subcommands]
    specs, words = [], []
    for command in [*subcommands, default]:
        opts = shlex.quote(" ".join(name for option in command.options for name in option.names))
        valued = " ".join(["", *command.valued, ""])
        pattern = "*" if command is default else command.name
        specs.append(f"        {pattern}) opts={opts}; valued='{valued}' ;;")
        keys = [(name, o.choices) for o in command.options if o.choices for name in o.names]
        keys += [(f"#{i}", a.choices) for i, a in enumerate(command.arguments) if a.choices]
        for key, choices in keys:
            words.append(f'        "{command.name} {key}") words="{" ".join(choices)}" ;;')
    return _BASH.format(
        names="|".join(names),
        commands=" ".join(names),
        specs="\n".join(specs),
        words="\n".join(words),
    )


_BASH = """\
# rewardkit completion for bash (generated from its parsers): eval "$(rewardkit completion bash)"
_rewardkit() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
    local cmd=rewardkit first=1 n=0 i word key opts valued words="" files=""
    [[ $cur == "=" ]] && cur=""  # --option=<TAB>: bash splits the word at the =
    [[ $prev == "=" ]] && prev=${{COMP_WORDS[COMP_CWORD-2]}}
    case ${{COMP_WORDS[1]}} in
        {names}) (( COMP_CWORD > 1 )) && cmd=${{COMP_WORDS[1]}} && first=2 ;;
    esac
    case $cmd in
{specs}
    esac
    if [[ $valued == *" $prev "* ]]; then
        key=$prev
    elif [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return 0
    else
        for (( i = first; i < COMP_CWORD; i++ )); do
            word=${{COMP_WORDS[i]}}
            if [[ $word == "=" ]]; then
                i=$((i + 1))
            elif [[ $valued == *" $word "* ]]; then
                [[ ${{COMP_WORDS[i+1]}} == "=" ]] || i=$((i + 1))
            elif [[ $word != -* ]]; then
                n=$((n + 1))
            fi
        done
        key="#$n"
    fi
    case "$cmd $key" in
{words}
        *) files=1 ;;
    esac
    (( COMP_CWORD == 1 )) && words="{commands}"  # a subcommand, or a tests directory
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    if [[ -n $files ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t -O "${{#COMPREPLY[@]}}" COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
}}
complete -F _rewardkit rewardkit
"""


def _zsh(commands: list[_Command]) -> str:
    default, *subcommands = commands
    described = "\n".join(f"    '{c.name}:{c.help}'" for c in subcommands)
    cases = [
        f"        ({command.name})\n          _arguments -S \\\n            "
        + " \\\n            ".join(_zsh_specs(command))
        + " ;;"
        for command in subcommands
    ]
    return _ZSH.format(
        names="|".join(c.name for c in subcommands),
        described=described,
        cases="\n".join(cases),
        default=" \\\n    ".join(_zsh_specs(default)),
    )


def _zsh_specs(command: _Command) -> list[str]:
    specs = []
    for option in command.options:
        value = f":{option.names[0].lstrip('-')}:{_zsh_action(option.choices)}"
        for name in option.names:
            star = "*" if option.repeats else ""
            eq = "=" if option.takes_value else ""
            specs.append(f"'{star}{name}{eq}[{option.help}]{value if eq else ''}'")
    for argument in command.arguments:
        prefix = {"?": "::", "*": "*:", "+": "*:"}.get(str(argument.nargs), ":")
        specs.append(f"'{prefix}{argument.name}:{_zsh_action(argument.choices)}'")
    return specs


def _zsh_action(choices: tuple[str, ...]) -> str:
    return f"({' '.join(choices)})" if choices else "_files"


_ZSH = """\
#compdef rewardkit
# rewardkit completion for zsh (generated from its parsers): eval "$(rewardkit completion zsh)"
# after compinit in ~/.zshrc, or save it as _rewardkit in a directory of $fpath.
_rewardkit() {{
  local -a commands
  commands=(
{described}
  )
  if (( CURRENT > 2 )); then
    case $words[2] in
      ({names})
        shift words
        (( CURRENT-- ))
        case $words[1] in
{cases}
        esac
        return ;;
    esac
  elif [[ $PREFIX != -* ]]; then
    _describe -t commands 'rewardkit command' commands
    _files
    return
  fi
  _arguments -S \\
    {default}
}}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _rewardkit "$@"
else
  compdef _rewardkit rewardkit
fi
"""


def _fish(commands: list[_Command]) -> str:
    subcommands = commands[1:]
    valued = "\n".join(
        f"        case {c.name}\n            printf '%s\\n' {' '.join(c.valued)}"
        for c in commands
        if c.valued
    )
    lines = [_FISH.format(names=" ".join(c.name for c in subcommands), valued=valued)]
    for command in subcommands:
        lines.append(
            f"complete -c rewardkit -n 'test (count (commandline -opc)) = 1' -a {command.name} "
            f"-d '{command.help}'"
        )
    for command in commands:
        using = f"-n '__rewardkit_using {command.name}'"
        for option in command.options:
            kind = f" -x -a '{' '.join(option.choices)}'" if option.choices else ""
            kind = kind or (" -r" if option.takes_value else "")
            for name in option.names:
                lines.append(
                    f"complete -c rewardkit {using} -l {name[2:]}{kind} -d '{option.help}'"
                )
        for index, argument in enumerate(command.arguments):
            if argument.choices:
                lines.append(
                    f"complete -c rewardkit -n '__rewardkit_argument {command.name} {index}' -f "
                    f"-a '{' '.join(argument.choices)}'"
                )
    return "\n".join(lines) + "\n"


_FISH = """\
# rewardkit completion for fish (generated from its parsers):
#   rewardkit completion fish > ~/.config/fish/completions/rewardkit.fish
function __rewardkit_using -a command
    set -l tokens (commandline -opc)
    if set -q tokens[2]; and contains -- $tokens[2] {names}
        test $tokens[2] = $command
    else
        test $command = rewardkit
    end
end

# the options of COMMAND that take a value
function __rewardkit_valued -a command
    switch $command
{valued}
    end
end

# true when the word being completed is argument INDEX (from 0) of COMMAND
function __rewardkit_argument -a command index
    __rewardkit_using $command; or return 1
    set -l tokens (commandline -opc)
    set -l valued (__rewardkit_valued $command)
    set -l first 3
    test $command = rewardkit; and set first 2
    set -l count 0
    set -l skip 0
    for token in $tokens[$first..-1]
        if test $skip = 1
            set skip 0
        else if contains -- $token $valued
            set skip 1
        else if not string match -q -- '-*' $token
            set count (math $count + 1)
        end
    end
    test $count = $index
end
"""

_RENDER: dict[str, Callable[[list[_Command]], str]] = {"bash": _bash, "zsh": _zsh, "fish": _fish}
