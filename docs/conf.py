"""Sphinx configuration of Placer's documentation (Markdown through MyST).

Build it with warnings as errors, as scripts/test.sh does:

    .venv/bin/sphinx-build -W -b html docs docs/_build/html

The configuration and policy references are generated from the code
(oslo.config's and oslo.policy's Sphinx extensions), so they cannot drift.
"""

import pathlib
import sys

# Placer's own directives (placer-command, placer-message): docs/_ext/
sys.path.insert(0, str(pathlib.Path(__file__).parent / "_ext"))

project = "Placer"
author = "The Placer contributors"
copyright = "The Placer contributors"

extensions = [
    "myst_parser",
    "oslo_config.sphinxext",  # show-options: the configuration reference
    "oslo_policy.sphinxext",  # show-policy: the policy reference
    "placer_commands",  # placer-command: the command reference, from the parsers
    "placer_messages",  # placer-message: texts Placer writes, checked against the code
    "reno.sphinxext",  # release-notes: releasenotes/notes, docs/releasenotes.md
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# headings get anchors, so that pages can link to "page.md#a-section"
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "alabaster"
html_title = "Placer"
html_static_path: list[str] = []
