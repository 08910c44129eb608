"""Statements in the documentation that once were not true, kept true.

- No placeholder such as ``<placer-git-url>`` is left: Placer has no public
  URL, and the pages say so in one sentence wherever they give an example.
- The candidate order page does not present ``id`` as the reference's order
  (the reference lists a limited answer in a set's hash order:
  docs/api/differences.md), and every fill figure it quotes is on the
  results page, the ``id`` and ``reference-id`` figures each under its own
  name.
- The deployment pages do not promise "one change" where a tool needs more,
  and the number of changes they state for puppet-placement is the number
  the puppet page lists.

Each check is a function returning what it found wrong, also run on text
that must fail it.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
CANDIDATE_ORDER = DOCS / "operator" / "candidate-order.md"
RESULTS = DOCS / "results" / "index.md"
DEPLOYMENT = DOCS / "deployment"

PLACEHOLDER = re.compile(r"<[a-z-]*url>")
EXAMPLE_URL = "https://git.example.com/placer.git"
EXAMPLE_SENTENCE = (
    "`https://git.example.com/placer.git` stands for the URL of your Placer git "
    "repository (a mirror of this one): Placer has no public URL yet, so that "
    "address is only an example.")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
COUNTS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten".split())}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _documents() -> list[Path]:
    """README.md and every text file under docs/ but a build's output."""
    found = [ROOT / "README.md"]
    for path in sorted(DOCS.rglob("*")):
        if path.is_file() and "_build" not in path.relative_to(DOCS).parts:
            found.append(path)
    return found


def _text(path: Path) -> str | None:
    try:
        return path.read_text()
    except UnicodeDecodeError:  # an image
        return None


def _section(text: str, heading: str) -> str:
    """From the ``## heading`` line to the next heading of that level."""
    start = text.index(f"## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


# ---- the checks -------------------------------------------------------------

def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)


def unexplained_example_url(text: str) -> list[str]:
    """A page giving the example URL must say, in the common sentence, that it
    is one."""
    if EXAMPLE_URL in text and EXAMPLE_SENTENCE not in _flat(text):
        return [EXAMPLE_URL]
    return []


def id_called_the_reference(text: str) -> list[str]:
    """Phrases presenting the id order as the reference's own."""
    flat = _flat(text).lower()
    wrong = [p for p in ("reference's order", "byte-identical", "byte for byte",
                         "the reference's answers") if p in flat]
    id_row = re.search(r"^\| `id`.*$", text, re.M)
    if id_row is None or "hash order" not in id_row.group(0):
        wrong.append("the id row does not say the reference lists a hash order")
    return wrong


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in NUMBER.findall(text)}


def _fill_table(results: str, heading: str) -> dict[str, list[str]]:
    """The rows of the results page's table under ``### heading``, by order."""
    rows = {}
    for line in results[results.index(f"### {heading}\n"):].splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) > 2 and cells[0] != "order":
            rows[cells[0]] = cells[1:]
    return rows


def unsourced_fill_figures(page: str, results: str) -> list[str]:
    """The figures the candidate order page's fill section quotes that the
    results page's fill section does not hold; inline code (settings) aside.
    A host size in GiB is a MEMORY_MB total of the results divided by 1024,
    and a percentage of a host is the largest flavor's RAM over a host's
    capacity, as the results page gives them."""
    quoted = re.sub(r"`[^`]*`", "", _section(page, "What each order does to a cloud"))
    fill = _section(results, "Fill:")
    held = _numbers(fill)
    gib = {n for sizes in re.findall(r"((?:\d+(?:,\s*|\s+and\s+))*\d+)\s+GiB", quoted)
           for n in re.findall(r"\d+", sizes)}
    flavor = re.search(r"huge \d+ / (\d+) /", fill)
    host = re.search(r"MEMORY_MB (\d+) \(reserved (\d+)\)", fill)
    assert flavor and host, "the results page no longer describes the flavors and hosts"
    share = round(100 * int(flavor.group(1)) / (int(host.group(1)) - int(host.group(2))))
    missing = []
    for found in NUMBER.finditer(quoted):
        figure, after = found.group(0).replace(",", ""), quoted[found.end():found.end() + 5]
        if figure in held:
            continue
        if after.startswith("%") and figure == str(share):
            continue
        if figure in gib and str(int(figure) * 1024) in held:
            continue
        missing.append(figure)
    return missing


def misattributed_id_and_reference(page: str, results: str) -> list[str]:
    """The first figure after Placer's `id` order and after `reference-id` in
    the page's fill section must be that order's standard deviation of RAM
    use on identical flat hosts."""
    rows = _fill_table(results, "Fill, flat (300 hosts)")
    quoted = _section(page, "What each order does to a cloud")
    wrong = []
    for label, order in (("Placer's `id` order", "id"), ("`reference-id`", "reference-id")):
        at = quoted.find(label)
        first = re.search(r"\d\.\d{3}", quoted[at:]) if at >= 0 else None
        if first is None or order not in rows or first.group(0) != rows[order][0]:
            wrong.append(f"{label}: {first and first.group(0)} (results: "
                         f"{rows.get(order, ['?'])[0]})")
    return wrong


def one_change(text: str) -> list[str]:
    return re.findall(r"one (?:thing )?change", _flat(text), re.I)


def _count(word: str | None) -> int | None:
    """A number written as a word or in digits; None for anything else."""
    if word is None:
        return None
    return int(word) if word.isdigit() else COUNTS.get(word.lower())


def puppet_count(index: str, puppet: str) -> list[str]:
    """The number of puppet-placement's changes the puppet page states, the
    index's row and (when it gives one) the index's introduction state is
    the number of changes the puppet page lists."""
    listed = re.search(r"(\w+) things\s+change:\n\n((?:- .*\n(?:  .*\n)*)+)", puppet)
    if listed is None:
        return ["the puppet page lists no changes"]
    items = len(re.findall(r"^- ", listed.group(2), re.M))
    row = re.search(r"^\|[^|]*\| puppet-placement \|[^|]*?(\w+) changes", index, re.M)
    intro = re.search(r"(\w+) changes \(puppet-placement\)", _flat(index))
    stated = {"the puppet page": _count(listed.group(1)),
              "the index's row": _count(row and row.group(1))}
    if intro is not None:
        stated["the index's introduction"] = _count(intro.group(1))
    return [f"{where} says {n}, the puppet page lists {items}"
            for where, n in stated.items() if n != items]


# ---- on the documentation -------------------------------------------------------

def test_no_placeholder_and_example_urls_said_so():
    wrong = {}
    for path in _documents():
        text = _text(path)
        if text is not None and (placeholders(text) or unexplained_example_url(text)):
            wrong[str(path.relative_to(ROOT))] = placeholders(text) or [EXAMPLE_URL]
    assert not wrong, (f"{wrong}: give {EXAMPLE_URL} as the example, with the sentence: "
                       f"{EXAMPLE_SENTENCE}")


def test_candidate_order_does_not_call_id_the_reference():
    assert not id_called_the_reference(CANDIDATE_ORDER.read_text())


def test_candidate_order_fill_figures_are_the_results():
    page, results = CANDIDATE_ORDER.read_text(), RESULTS.read_text()
    assert not unsourced_fill_figures(page, results)
    assert not misattributed_id_and_reference(page, results)


@pytest.mark.parametrize("path", [*sorted(DEPLOYMENT.glob("*.md")), DOCS / "install.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_one_change(path):
    assert not one_change(path.read_text()), path


def test_puppet_changes_stated_are_those_listed():
    assert not puppet_count((DEPLOYMENT / "index.md").read_text(),
                            (DEPLOYMENT / "puppet-and-packages.md").read_text())


# ---- the checks can fail ----------------------------------------------------------

RESULTS_SAMPLE = """\
## Fill: candidate order

Flavors: huge 16 / 49152 / 320 (7%). Each host: MEMORY_MB 131072 (reserved 4096);
MEMORY_MB 262144 (reserved 4096).

### Fill, flat (300 hosts)

| order | std dev of RAM use | empty hosts |
|---|---|---|
| id | 0.472 | 138 (149) |
| reference-id | 0.391 | 100 (149) |
"""
PAGE_SAMPLE = """\
## What each order does to a cloud

- Placer's `id` order packs (standard deviation {id}, 138 empty of 149);
  `reference-id` packs less ({ref}, 100 empty). Hosts of 128 and 256 GiB;
  the largest takes {share}% of a host, in `limit=30` answers.

## Next
"""


def test_the_checks_find_what_is_wrong():
    assert placeholders("PLACEMENT_REPO=<placer-git-url>") == ["<placer-git-url>"]
    assert placeholders("location = <url>") == ["<url>"]
    assert not placeholders(f"PLACEMENT_REPO={EXAMPLE_URL}")
    assert unexplained_example_url(f"PLACEMENT_REPO={EXAMPLE_URL}")
    assert not unexplained_example_url(f"x={EXAMPLE_URL}\n\n" + EXAMPLE_SENTENCE.replace(
        " repository", "\nrepository"))

    hash_row = "| `id` (default) | first fit | the reference lists a set in its hash order |\n"
    assert not id_called_the_reference(hash_row)
    assert id_called_the_reference(hash_row + "with `id`, answers are byte-identical")
    assert id_called_the_reference(hash_row + "# id (the reference's\norder)")
    assert id_called_the_reference("| `id` (default) | first fit | the reference's answers |")

    good = PAGE_SAMPLE.format(id="0.472", ref="0.391", share="39")
    assert not unsourced_fill_figures(good, RESULTS_SAMPLE)
    assert not misattributed_id_and_reference(good, RESULTS_SAMPLE)
    assert unsourced_fill_figures(PAGE_SAMPLE.format(id="0.472", ref="0.392", share="39"),
                                  RESULTS_SAMPLE) == ["0.392"]
    assert unsourced_fill_figures(PAGE_SAMPLE.format(id="0.472", ref="0.391", share="38"),
                                  RESULTS_SAMPLE) == ["38"]
    swapped = PAGE_SAMPLE.format(id="0.391", ref="0.472", share="39")
    assert not unsourced_fill_figures(swapped, RESULTS_SAMPLE)  # both figures exist...
    assert len(misattributed_id_and_reference(swapped, RESULTS_SAMPLE)) == 2  # ...not there

    assert one_change("| page | tool | the one change |")
    assert one_change("For each tool, one thing\nchanges")
    assert not one_change("two variables in `local.conf`")

    four = "four things\nchange:\n\n- a\n- b\n  more b\n- c\n- d\n\nafter\n"
    row = "| [p](p.md) | puppet-placement | four changes: a, b, c, d |\n"
    intro = "from two variables to four\nchanges (puppet-placement).\n"
    assert not puppet_count(intro + row, four)
    five = four.replace("four", "five").replace("- d\n", "- d\n- e\n")
    assert not puppet_count(row.replace("four", "5"), five)
    assert puppet_count(row.replace("four", "one"), four) == [
        "the index's row says 1, the puppet page lists 4"]
    assert puppet_count(intro.replace("four", "three") + row, four) == [
        "the index's introduction says 3, the puppet page lists 4"]
    assert len(puppet_count(row, four.replace("- d\n", ""))) == 2  # page and row say four
    assert puppet_count(row, "four things change: a, b, c, d\n") == [
        "the puppet page lists no changes"]
