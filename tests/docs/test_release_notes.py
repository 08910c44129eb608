"""The release notes (releasenotes/notes/*.yaml, reno's format) are notes reno
can render: each file parses, is named as ``reno new`` names it and uses only
reno's sections; ``reno lint`` agrees; the notes say which reference the
current release tracks; and the project's version is a release tag as
releasenotes/config.yaml reads tags (docs/releasenotes.md renders them)."""

import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest
import yaml

from placer import microversions

ROOT = pathlib.Path(__file__).parents[2]
NOTES = ROOT / "releasenotes" / "notes"
CONFIG = ROOT / "releasenotes" / "config.yaml"
BIN = os.path.dirname(sys.executable)
# reno's sections (its default `sections`, which config.yaml keeps) and the prelude
SECTIONS = {"prelude", "features", "issues", "upgrade", "deprecations", "critical",
            "security", "fixes", "other"}
# The openstack-placement release this one tracks, as the differences page
# states it in its first paragraph
TRACKED_REFERENCE = re.search(
    r"openstack-placement (\d+\.\d+\.\d+)",
    (ROOT / "docs" / "api" / "differences.md").read_text()).group(1)
NOTE_FILES = sorted(NOTES.glob("*.yaml"))


def _text(note: dict) -> str:
    """A note's text, whitespace collapsed as its rendering does."""
    parts = [v if isinstance(v, str) else "\n".join(v) for v in note.values()]
    return " ".join(" ".join(parts).split())


def test_there_are_notes():
    assert len(NOTE_FILES) >= 5
    assert [p.name for p in NOTES.iterdir() if p.suffix != ".yaml"] == []


@pytest.mark.parametrize("path", NOTE_FILES, ids=lambda p: p.name)
def test_note_parses_with_reno_sections(path):
    # <slug>-<16 hex digits>.yaml, as `reno new <slug>` names it
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*-[0-9a-f]{16}\.yaml", path.name)
    note = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(note, dict) and note, "a note is a mapping of sections"
    assert set(note) <= SECTIONS, f"unknown sections: {set(note) - SECTIONS}"
    for section, value in note.items():
        if section == "prelude":
            assert isinstance(value, str) and value.strip()
        else:  # a string or a list of strings, each an item of the section
            items = [value] if isinstance(value, str) else value
            assert isinstance(items, list) and items
            assert all(isinstance(item, str) and item.strip() for item in items)


def test_unique_ids_are_unique():
    ids = [p.stem[-16:] for p in NOTE_FILES]
    assert len(ids) == len(set(ids))


def test_notes_name_the_tracked_reference_and_microversions():
    text = " ".join(_text(yaml.safe_load(p.read_text(encoding="utf-8"))) for p in NOTE_FILES)
    assert f"openstack-placement {TRACKED_REFERENCE}" in text
    newest = "{}.{}".format(*microversions.MAX)
    assert f"1.0 to {newest}" in text


def test_the_version_is_a_release_tag():
    """Tagging a release with its version (epoch included) makes reno file the
    notes under it; other tags are not taken for releases."""
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    release = re.compile(config["release_tag_re"], re.VERBOSE | re.UNICODE)
    pre_release = re.compile(config["pre_release_tag_re"], re.VERBOSE | re.UNICODE)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version.startswith("1!")
    assert release.match(version)
    assert release.match("1!1.1.0rc1") and pre_release.search("1!1.1.0rc1")
    assert not pre_release.search(version)
    assert not any(release.match(tag) for tag in ("baseline", "v-bench", "before-reno"))


@pytest.mark.processes
def test_reno_lint_passes():
    done = subprocess.run([os.path.join(BIN, "reno"), "lint"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
