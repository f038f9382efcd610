#!/usr/bin/env bash
# The Action's first step: puts `toolgate` on the job's PATH. A `toolgate`
# already there is used as it is; else the one built into TOOLGATE_ROOT by
# an earlier run (the Action caches that folder); else it is built from the
# Action's own checkout with `cargo install --locked` (no release binaries
# are published yet). Appends the folder to GITHUB_PATH.
set -euo pipefail
: "${GITHUB_ACTION_PATH:?the checkout of the Action}" "${GITHUB_PATH:?the file of PATH additions}"
: "${TOOLGATE_ROOT:?where the runner is installed}"
if command -v toolgate >/dev/null 2>&1; then
  echo "toolgate: using $(command -v toolgate) ($(toolgate --version))"
  exit 0
fi
if [ ! -x "$TOOLGATE_ROOT/bin/toolgate" ]; then
  if ! command -v cargo >/dev/null 2>&1; then
    echo "toolgate: no toolgate on the PATH and no cargo to build it; add a Rust toolchain step (dtolnay/rust-toolchain@stable) before this Action" >&2
    exit 2
  fi
  cargo install --locked --quiet --path "$GITHUB_ACTION_PATH/runner" --root "$TOOLGATE_ROOT"
fi
echo "$TOOLGATE_ROOT/bin" >>"$GITHUB_PATH"
echo "toolgate: $("$TOOLGATE_ROOT/bin/toolgate" --version) in $TOOLGATE_ROOT/bin"
