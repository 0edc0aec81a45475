"""The documentation explains the project by itself: every link it makes points at a file of the repository, and
nothing points at material that lives outside it (the original rule texts are not part of the repository)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: The rule texts and rulings that live beside the repository, not in it.
OUTSIDE = re.compile(r"(\.\./)+shared|/work/shared|shared/rules|\w+\.(fr|en)\.txt")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_relative_link_points_into_the_repository(doc: Path) -> None:
    for target in LINK.findall(doc.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{doc.name} links outside the repository: {target}"
        assert path.exists(), f"{doc.name} links to a missing file: {target}"


CODE = sorted(p for folder in ("tower", "cardgames", "physics", "viewer", "benchmarks", "tests")
              for p in (ROOT / folder).rglob("*.py") if p != Path(__file__).resolve())


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_doc_points_at_files_outside_the_repository(doc: Path) -> None:
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        assert not OUTSIDE.search(line), f"{doc.name}:{n} points outside the repository: {line.strip()}"


def test_no_code_points_at_files_outside_the_repository() -> None:
    for path in CODE:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            assert not OUTSIDE.search(line), f"{path.relative_to(ROOT)}:{n} points outside the repository"


def test_the_check_catches_what_the_docs_once_said() -> None:
    """The two references the docs carried before (issue 16): both are caught."""
    assert OUTSIDE.search("the rulings are in ../shared/rules/README.md")
    assert OUTSIDE.search("see heaven-hell.fr.txt")
