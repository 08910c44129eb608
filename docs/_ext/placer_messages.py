"""The ``placer-message`` directive: a text that Placer itself writes (a log
line, the detail of an error response, a command's output), quoted exactly.

In a Markdown page::

    ```{placer-message} log placement.db WARNING
    SQL connection failed (attempt <n>, <left> attempts left): <driver error>
    ```

The first word says where the text appears (see ``KINDS``), the rest of the
line is shown beside it (the logger and level, the status, the command).
Each line of the content is one message; ``<...>`` stands for a value
filled in at run time. tests/docs/test_commands.py reads these blocks
from docs/operator/troubleshooting.md and checks that each message occurs in
src/placer, so the quotes cannot drift. Texts written by other programs
(uWSGI, argparse, oslo.config) are quoted in plain code blocks instead.
"""

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

KINDS = {
    "log": "Log message",
    "response": "Response detail",
    "stdout": "Output",
    "stderr": "Error output",
}


class MessageDirective(SphinxDirective):
    """``placer-message KIND [WHERE ...]`` with the message(s) as content."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self) -> list[nodes.Node]:
        kind, _, where = self.arguments[0].partition(" ")
        if kind not in KINDS:
            raise self.error(f"placer-message: unknown kind {kind!r}: one of {', '.join(KINDS)}")
        lines = [line for line in self.content if line.strip()]
        if not lines:
            raise self.error("placer-message: no message given")
        label = KINDS[kind] + (f" ({where.strip()})" if where.strip() else "") + ":"
        caption = nodes.paragraph(classes=["placer-message-label"])
        caption += nodes.emphasis(label, label)
        text = "\n".join(lines)
        return [caption, nodes.literal_block(text, text, language="text",
                                             classes=["placer-message"])]


def setup(app):
    app.add_directive("placer-message", MessageDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
