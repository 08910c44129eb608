"""The ``placer-command`` directive: a command's usage, arguments and
sub-commands, read from the argument parser the command itself runs
(``build_parser()`` in placer.cli.api, placer.cli.manage, placer.cli.status),
so that docs/operator/commands.md cannot drift from the code.

In a Markdown page::

    ```{placer-command} placement-manage db online_data_migrations
    ```

renders the usage line as ``--help`` prints it, then a table of the
positional arguments and options (each as ``--help`` writes it, with its
help text), then a table of the sub-commands, if any.

``describe`` and ``command_paths`` work without Sphinx:
tests/docs/test_commands.py checks what they return.
"""

import argparse
import dataclasses
import importlib
import pathlib

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

# each command's program name -> the module whose build_parser() makes its parser
COMMANDS = {
    "placement-api": "placer.cli.api",
    "placement-manage": "placer.cli.manage",
    "placement-status": "placer.cli.status",
}
USAGE_WIDTH = 78


@dataclasses.dataclass
class Argument:
    invocation: str  # as --help writes it: "--max-count <number>", "version"
    strings: list[str]  # the option strings ("--log-file", "--logfile"), or the name
    help: str


@dataclasses.dataclass
class Command:
    path: tuple[str, ...]  # ("placement-manage", "db", "sync")
    usage: str
    description: str
    arguments: list[Argument]
    subcommands: list[tuple[str, str]]  # (name, help)


def _module(prog: str):
    try:
        return importlib.import_module(COMMANDS[prog])
    except KeyError:
        raise ValueError(f"unknown command {prog!r}: one of {', '.join(COMMANDS)}") from None


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def parser_for(path: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser of ``path``: a program name, then sub-command names."""
    parser = _module(path[0]).build_parser()
    for depth, name in enumerate(path[1:], start=1):
        action = _subparsers(parser)
        if action is None or name not in action.choices:
            raise ValueError(f"{' '.join(path[:depth])} has no sub-command {name!r}")
        parser = action.choices[name]
    return parser


def command_paths(prog: str) -> list[tuple[str, ...]]:
    """``prog`` and every sub-command path under it, parents first."""
    paths = []

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        paths.append(path)
        action = _subparsers(parser)
        for name, sub in (action.choices.items() if action else ()):
            walk(sub, (*path, name))

    walk(_module(prog).build_parser(), (prog,))
    return paths


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def describe(path: tuple[str, ...]) -> Command:
    """What the directive renders for ``path``, as plain data."""
    parser = parser_for(path)
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    usage = formatter.format_help().strip()
    arguments, subcommands = [], []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            subcommands = [(name, _one_line(helps.get(name))) for name in action.choices]
            continue
        if action.help == argparse.SUPPRESS:
            continue
        helper = _formatter(parser)  # a fresh one: invocation and help as --help words them
        arguments.append(Argument(
            invocation=helper._format_action_invocation(action),
            strings=list(action.option_strings) or [action.dest],
            help=_one_line(helper._expand_help(action)) if action.help else ""))
    return Command(path, usage, _one_line(parser.description), arguments, subcommands)


def _table(header: tuple[str, str], rows: list[tuple[nodes.Node, str]]) -> nodes.table:
    table = nodes.table(classes=["placer-command"])
    group = nodes.tgroup(cols=2)
    table += group
    group += nodes.colspec(colwidth=35)
    group += nodes.colspec(colwidth=65)

    def row(cells) -> nodes.row:
        line = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", cell if isinstance(cell, nodes.Node)
                                     else nodes.Text(cell))
            line += entry
        return line

    head = nodes.thead()
    head += row(header)
    group += head
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += body
    return table


class CommandDirective(SphinxDirective):
    """``placer-command PROG [SUB-COMMAND ...]``"""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = tuple(self.arguments[0].split())
        try:
            command = describe(path)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        for source in sorted(pathlib.Path(_module(path[0]).__file__).parent.glob("*.py")):
            self.env.note_dependency(str(source))  # the parsers are built across cli/
        out: list[nodes.Node] = [nodes.literal_block(command.usage, command.usage,
                                                     language="text")]
        if command.description:
            out.append(nodes.paragraph("", command.description))
        if command.arguments:
            out.append(_table(("Argument", "Description"), [
                (nodes.literal(a.invocation, a.invocation), a.help or "(no help text)")
                for a in command.arguments]))
        if command.subcommands:
            out.append(_table(("Sub-command", "Description"), [
                (nodes.literal(name, " ".join((*path, name))), text or "(no help text)")
                for name, text in command.subcommands]))
        return out


def setup(app):
    app.add_directive("placer-command", CommandDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
