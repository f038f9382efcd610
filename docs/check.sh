#!/usr/bin/env bash
# Builds the book (docs/src -> docs/book) and checks every link of it and of
# README.md: docs/check_links.py says what is checked. Runs from any
# directory; makes docs/.venv (mdBook from docs/requirements.txt) if missing
# or out of date. Exits non-zero on a build error or a broken link.
set -euo pipefail

docs="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$docs/.venv"

if ! cmp -s "$docs/requirements.txt" "$venv/requirements.txt"; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$docs/requirements.txt"
    cp "$docs/requirements.txt" "$venv/requirements.txt"
fi

"$venv/bin/mdbook" build "$docs"
"$venv/bin/python" "$docs/check_links.py"
