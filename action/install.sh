#!/usr/bin/env bash
# The Action's first step: puts `toolgate` on the job's PATH. In order:
# - a `toolgate` already on the PATH is used as it is;
# - the one an earlier run left in TOOLGATE_ROOT (the Action caches it);
# - the release binary of the Action's version for this platform, when the
#   Action is used at a release tag (`uses: <repository>@v0.1.0`) and the
#   release has it: downloaded with its SHA-256 checksum, which must match;
# - else built from the Action's own checkout with `cargo install --locked`.
# Appends the folder to GITHUB_PATH.
set -euo pipefail
: "${GITHUB_ACTION_PATH:?the checkout of the Action}" "${GITHUB_PATH:?the file of PATH additions}"
: "${TOOLGATE_ROOT:?where the runner is installed}"
if command -v toolgate >/dev/null 2>&1; then
  echo "toolgate: using $(command -v toolgate) ($(toolgate --version))"
  exit 0
fi

# The release archive's target triple for this machine (cargo-dist's names).
target() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}

# Downloads the release binary into TOOLGATE_ROOT/bin; fails (and leaves
# nothing) when there is none or its checksum does not match.
download() {
  local version="${TOOLGATE_VERSION:-${GITHUB_ACTION_REF:-}}" triple base archive tmp
  [[ "$version" =~ ^v[0-9] ]] || return 1
  triple=$(target) || return 1
  base="${TOOLGATE_RELEASES_URL:-https://github.com/${GITHUB_ACTION_REPOSITORY:-}/releases/download}"
  archive="toolgate-$triple.tar.xz"
  tmp=$(mktemp -d)
  if ! curl -fsSL --retry 2 -o "$tmp/$archive" "$base/$version/$archive" \
    || ! curl -fsSL --retry 2 -o "$tmp/$archive.sha256" "$base/$version/$archive.sha256"; then
    rm -rf "$tmp"
    return 1
  fi
  if [ "$(sha256sum "$tmp/$archive" | cut -d' ' -f1)" != "$(cut -d' ' -f1 <"$tmp/$archive.sha256")" ]; then
    echo "toolgate: $archive of $version does not match its checksum; not using it" >&2
    rm -rf "$tmp"
    return 1
  fi
  tar -xJf "$tmp/$archive" -C "$tmp"
  mkdir -p "$TOOLGATE_ROOT/bin"
  cp "$tmp/toolgate-$triple"/toolgate* "$TOOLGATE_ROOT/bin/"
  rm -rf "$tmp"
  echo "toolgate: the release binary of $version for $triple"
}

if [ ! -x "$TOOLGATE_ROOT/bin/toolgate" ] && ! download; then
  if ! command -v cargo >/dev/null 2>&1; then
    echo "toolgate: no toolgate on the PATH, no release binary for this platform and version, and no cargo to build it; add a Rust toolchain step (dtolnay/rust-toolchain@stable) before this Action" >&2
    exit 2
  fi
  cargo install --locked --quiet --path "$GITHUB_ACTION_PATH/runner" --root "$TOOLGATE_ROOT"
fi
echo "$TOOLGATE_ROOT/bin" >>"$GITHUB_PATH"
echo "toolgate: $("$TOOLGATE_ROOT/bin/toolgate" --version) in $TOOLGATE_ROOT/bin"
