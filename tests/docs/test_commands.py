"""The command reference and the troubleshooting page against the code.

docs/operator/commands.md renders each command's parser (the
``placer-command`` directive of docs/_ext/placer_commands.py): every command
and sub-command has its directive there, and what the directive renders
names every sub-command and every option string. docs/operator/troubleshooting.md
has a section for every ``placement.*`` error code the code can answer, and
every text it quotes as Placer's own (a ``placer-message`` block) occurs in
src/placer: a message whose wording changes in the code fails here until the
page says it again.
"""

import argparse
import ast
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[2]
SRC = ROOT / "src" / "placer"
COMMANDS_PAGE = ROOT / "docs" / "operator" / "commands.md"
TROUBLESHOOTING_PAGE = ROOT / "docs" / "operator" / "troubleshooting.md"

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import placer_commands  # noqa: E402  (docs/_ext is not a package)
import placer_messages  # noqa: E402

# ```{name} argument
# content
# ```   (MyST's directive fences: three or more backticks or tildes)
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                    r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)


def _directives(page: pathlib.Path, name: str) -> list[tuple[str, str]]:
    """(argument, content) of every ``name`` directive of ``page``."""
    return [(m["arg"].strip(), m["body"]) for m in _FENCE.finditer(page.read_text())
            if m["name"] == name]


# -- the command reference ----------------------------------------------------

def _all_paths() -> list[tuple[str, ...]]:
    return [path for prog in placer_commands.COMMANDS
            for path in placer_commands.command_paths(prog)]


def test_the_parsers_have_the_known_sub_commands():
    """A floor, so that a parser walk that finds nothing cannot pass."""
    paths = {" ".join(p) for p in _all_paths()}
    assert {"placement-api", "placement-manage", "placement-manage db sync",
            "placement-manage db version", "placement-manage db stamp",
            "placement-manage db online_data_migrations", "placement-manage explain",
            "placement-manage capacity", "placement-manage scores rebuild",
            "placement-manage scores drop", "placement-status",
            "placement-status upgrade"} <= paths


def test_every_command_and_sub_command_has_its_directive():
    documented = [tuple(arg.split()) for arg, _ in _directives(COMMANDS_PAGE, "placer-command")]
    assert [p for p in _all_paths() if p not in documented] == []
    assert len(documented) == len(set(documented)), "a command rendered twice"


def test_every_directive_names_a_real_command():
    for arg, _ in _directives(COMMANDS_PAGE, "placer-command"):
        placer_commands.describe(tuple(arg.split()))  # ValueError for an unknown one


@pytest.mark.parametrize("path", _all_paths(), ids=" ".join)
def test_the_rendering_names_every_option_and_sub_command(path):
    parser = placer_commands.parser_for(path)
    command = placer_commands.describe(path)
    shown = " ".join([command.usage, *(a.invocation for a in command.arguments),
                      *(name for name, _ in command.subcommands)])
    words = set(re.findall(r"[\w-]+", shown))
    rows = {tuple(a.strings): a.help for a in command.arguments}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            assert set(action.choices) <= words
            assert [name for name, _ in command.subcommands] == list(action.choices)
            continue
        if action.help == argparse.SUPPRESS:
            continue  # hidden from --help too
        if action.option_strings:
            assert set(action.option_strings) <= words, action.option_strings
        else:  # a positional argument
            assert action.dest in words
        # its row, with the parser's help text
        key = tuple(action.option_strings) or (action.dest,)
        assert key in rows
        if action.help:
            assert rows[key].split()[:3] == action.help.split()[:3]


def test_the_page_states_exit_codes_and_examples_per_command():
    text = COMMANDS_PAGE.read_text()
    sections = re.split(r"^#{2,3} ", text, flags=re.MULTILINE)[1:]
    for path in _all_paths():
        if path[0] == "placement-manage" and len(path) == 2 and path[1] in ("db", "scores"):
            continue  # a group: its sub-commands say theirs
        name = " ".join(path)
        title = f"`{name}`"
        section = next((s for s in sections if s.startswith((title, f"`{name} "))), None)
        assert section is not None, f"no section titled {title}"
        assert "Exit" in section, f"{title}: no exit codes"
        assert "```sh" in section or "```console" in section, f"{title}: no example"


# -- error codes ---------------------------------------------------------------

_CODE = re.compile(r"placement(\.[a-z_]+)+")


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _names_environ(node: ast.AST) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in ("environ", "env")


def _not_an_error_code(parent: ast.AST, node: ast.Constant) -> bool:
    """A logger name, a WSGI environ key or a path: not a code clients see."""
    if isinstance(parent, ast.Call) and node in parent.args:
        if _call_name(parent) == "getLogger":
            return True
        if _call_name(parent) == "get" and isinstance(parent.func, ast.Attribute) \
                and _names_environ(parent.func.value):
            return True
        if _call_name(parent) == "join":  # os.path.join(conf_dir, "placement.conf")
            return True
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return _names_environ(parent.value)
    if isinstance(parent, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id.endswith("_ENVIRON") for t in parent.targets)
    return False


def error_codes(source: str) -> set[str]:
    """The ``placement.*`` error code literals of one module's source."""
    tree = ast.parse(source)
    found = set()
    for parent in ast.walk(tree):
        for node in ast.iter_child_nodes(parent):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and _CODE.fullmatch(node.value) and not _not_an_error_code(parent, node)):
                found.add(node.value)
    return found


def _codes_in_src() -> set[str]:
    return {code for path in SRC.rglob("*.py") for code in error_codes(path.read_text())}


def test_error_code_literals_are_told_from_logger_names_and_environ_keys():
    source = ('import logging\nLOG = logging.getLogger("placement.db")\n'
              'MICROVERSION_ENVIRON = "placement.microversion"\n'
              'v = environ.get("placement.microversion")\n'
              'NEW = "placement.resource_provider.new_thing"\n'
              'raise Conflict("x", code="placement.other_thing")\n')
    assert error_codes(source) == {"placement.resource_provider.new_thing",
                                   "placement.other_thing"}


def test_every_error_code_has_its_section():
    codes = _codes_in_src()
    assert {"placement.undefined_code", "placement.concurrent_update",
            "placement.duplicate_name", "placement.inventory.inuse",
            "placement.query.bad_value"} <= codes  # the walk finds them at all
    headings = [line for line in TROUBLESHOOTING_PAGE.read_text().splitlines()
                if line.startswith("#")]
    missing = [c for c in sorted(codes) if not any(f"`{c}`" in h for h in headings)]
    assert missing == [], "error codes without a section in troubleshooting.md"


# -- the quoted messages ---------------------------------------------------------

MARK = "\x00"  # a value filled in at run time, in a template from the code
_PRINTF = re.compile(r"%(\([\w]+\))?[-#0 +]*(\d+|\*)?(\.\d+)?[sdifgrxa]")
_PLACEHOLDER = re.compile(r"<[^<>\n]+>")
MIN_LETTERS = 8  # a template must say this much itself to stand for a message


def _module_constants(tree: ast.Module) -> dict[str, str]:
    """NAME = "text" at module level (PROG and the like, inlined into f-strings)."""
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            out[node.targets[0].id] = node.value.value
    return out


def _template(node: ast.AST, constants: dict[str, str]) -> str | None:
    """A string expression as text with MARK where a value goes; None if not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif (isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name)
                  and value.value.id in constants and value.conversion == -1
                  and value.format_spec is None):
                parts.append(constants[value.value.id])
            else:
                parts.append(MARK)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left, constants), _template(node.right, constants)
        if left is None and right is None:
            return None
        return (MARK if left is None else left) + (MARK if right is None else right)
    return None


def templates(source: str) -> set[str]:
    """Every text a module can write: its strings, f-strings and concatenations,
    with printf specifiers as values too."""
    tree = ast.parse(source)
    constants = _module_constants(tree)
    found = set()
    for node in ast.walk(tree):
        text = _template(node, constants)
        if text is not None:
            found.add(text)
            if "%" in text:
                found.add(_PRINTF.sub(MARK, text).replace("%%", "%"))
    return found


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text.replace(MARK, ""))


def _patterns(sources: list[str]) -> list[re.Pattern]:
    texts = {t for s in sources for t in templates(s)}
    # without the spaces around it: a page cannot show a trailing space
    return [re.compile("".join("(.*?)" if part == MARK else re.escape(part)
                               for part in re.split(f"({MARK})", t.strip())), re.DOTALL)
            for t in sorted(texts) if _letters(t) >= MIN_LETTERS]


def _only_values(text: str) -> bool:
    """Nothing but placeholders, spaces and punctuation: a value, not words."""
    return not any(ch.isalnum() for ch in _PLACEHOLDER.sub("", text))


def occurs(message: str, patterns: list[re.Pattern], depth: int = 2) -> bool:
    """Whether ``message`` is one of the texts: a template whose values are
    placeholders, or other templates (down to ``depth`` levels), as when one
    message is built into another."""
    for pattern in patterns:
        match = pattern.fullmatch(message)
        if match and all(_only_values(value) or (depth and occurs(value, patterns, depth - 1))
                         for value in match.groups()):
            return True
    return False


@pytest.fixture(scope="module")
def source_patterns() -> list[re.Pattern]:
    return _patterns([path.read_text() for path in SRC.rglob("*.py")])


def _messages() -> list[tuple[str, str]]:
    return [(arg, line.strip())
            for arg, body in _directives(TROUBLESHOOTING_PAGE, "placer-message")
            for line in body.splitlines() if line.strip()]


def test_the_matching_can_fail():
    source = ('PROG = "placement-api"\n'
              'LOG.warning("SQL connection failed (attempt %d, %s attempts left): %s", a, b, c)\n'
              'print(f"{PROG}: the database cannot be reached")\n'
              'detail = f"Unable to delete {uuid}: " + missing(uuid)\n'
              'def missing(uuid): return f"No resource provider with uuid {uuid} found"\n')
    patterns = _patterns([source])
    assert occurs("SQL connection failed (attempt <n>, <left> attempts left): <error>", patterns)
    assert occurs("placement-api: the database cannot be reached", patterns)
    assert occurs("Unable to delete <uuid>: No resource provider with uuid <uuid> found",
                  patterns)
    assert not occurs("SQL connection failed (attempt <n>): <error>", patterns)
    assert not occurs("placement-api: the database can not be reached", patterns)
    assert not occurs("Unable to delete <uuid>: it is gone", patterns)  # words, not a value


def test_the_page_quotes_messages():
    kinds = {arg.split()[0] for arg, _ in _messages()}
    assert len(_messages()) >= 30
    assert kinds <= set(placer_messages.KINDS)


@pytest.mark.parametrize("where,message", _messages())
def test_every_quoted_message_occurs_in_the_code(where, message, source_patterns):
    assert occurs(message, source_patterns), f"not in src/placer: {message!r} ({where})"
