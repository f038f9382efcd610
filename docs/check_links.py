#!/usr/bin/env python3
"""Checks the links of README.md and of the book (standard library only).

1. Sources: every relative link or image in README.md and docs/src/**/*.md
   must name a file or directory of the repository. A #fragment is checked
   when the target is one of those Markdown files (against its headings, as
   GitHub and mdBook make their ids); other fragments are not checked.
2. The built book (docs/book, made by `mdbook build docs`): every relative
   href and src that stays inside the book must name a file there, and its
   #fragment an id of that page. Links that leave the book (to the
   repository's files) are not pages of the book: part 1 checks them.

Prints each broken link and exits 1 if there is any.
"""

import functools
import html.parser
import os
import re
import sys
from pathlib import Path
from urllib.parse import unquote

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
BOOK = DOCS / "book"

EXTERNAL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)")
FENCE = re.compile(r"^ {0,3}(```+|~~~+).*?$(.*?)^ {0,3}\1\s*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
MD_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
RAW_HTML = re.compile(r"(?:href|src)=\"([^\"]+)\"")


def blank(match):
    """Replaces a code block or span by as many newlines, to keep line numbers."""
    return "\n" * match.group(0).count("\n") + " "


def strip_code(text):
    return CODE_SPAN.sub(blank, FENCE.sub(blank, text))


def slug(heading):
    """The id GitHub and mdBook give a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    kept = "".join(c for c in text.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


@functools.cache
def heading_ids(path):
    text = FENCE.sub(blank, path.read_text(encoding="utf-8"))
    ids, seen = set(), {}
    for match in re.finditer(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        base = slug(match.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        ids.add(base if n == 0 else f"{base}-{n}")
    return ids


def check_sources(errors):
    """Returns how many links it checked."""
    count = 0
    files = [ROOT / "README.md", *sorted((DOCS / "src").rglob("*.md"))]
    checked_md = set(files)
    for path in files:
        text = strip_code(path.read_text(encoding="utf-8"))
        targets = [(m.start(1), m.group(1)) for rx in (MD_LINK, REF_DEF, RAW_HTML) for m in rx.finditer(text)]
        for offset, target in sorted(targets):
            if EXTERNAL.match(target):
                continue
            count += 1
            where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, offset) + 1}"
            file_part, _, fragment = target.partition("#")
            dest = Path(os.path.normpath(path.parent / unquote(file_part))) if file_part else path
            if not dest.is_relative_to(ROOT):
                errors.append(f"{where}: {target} (leaves the repository)")
            elif not dest.exists():
                errors.append(f"{where}: {target} (no such file)")
            elif fragment and dest in checked_md and fragment not in heading_ids(dest):
                errors.append(f"{where}: {target} (no heading #{fragment})")
    return count


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            elif name in ("href", "src") and value:
                self.links.append((self.getpos()[0], value))


def check_book(errors):
    """Returns how many links inside the book it checked."""
    count, pages = 0, {}
    for path in sorted(BOOK.rglob("*.html")):
        page = Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path] = page
    for path, page in pages.items():
        for line, target in page.links:
            if EXTERNAL.match(target) or target.startswith("/"):
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            file_part, _, fragment = target.partition("#")
            dest = Path(os.path.normpath(path.parent / unquote(file_part))) if file_part else path
            if not dest.is_relative_to(BOOK):
                continue  # a repository file, checked in the sources
            count += 1
            if dest.is_dir():
                dest = dest / "index.html"
            if not dest.exists():
                errors.append(f"{where}: {target} (no such file in the book)")
            elif fragment and dest in pages and fragment not in pages[dest].ids:
                errors.append(f"{where}: {target} (no id #{fragment})")
    return count


def main():
    if not BOOK.is_dir():
        sys.exit(f"{BOOK} is missing: run `mdbook build {DOCS}` first")
    errors = []
    sources, book = check_sources(errors), check_book(errors)
    for error in errors:
        print(f"broken link: {error}")
    print(f"checked {sources} links in README.md and docs/src, {book} inside docs/book: {len(errors)} broken")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
