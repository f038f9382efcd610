#!/bin/bash -eu
# Builds every toolgate fuzz target for ClusterFuzzLite (and locally):
# `cargo fuzz build -O` with the sanitizer the engine asks for, then copies
# each binary and its seed corpus (from the conformance corpus) to $OUT.
# in the ClusterFuzzLite image the repository is $SRC/toolgate; locally, this
# script's own checkout (OUT must be set: OUT=/tmp/out .clusterfuzzlite/build.sh)
if [ -d "${SRC:-/nonexistent}/toolgate/fuzz" ]; then cd "$SRC/toolgate/fuzz"; else cd "$(dirname "$0")/../fuzz"; fi
mkdir -p "$OUT"
sanitizer="${SANITIZER:-address}"
if [ "$sanitizer" = "none" ] || [ "$sanitizer" = "coverage" ]; then flags=(-s none); else flags=(-s "$sanitizer"); fi
cargo fuzz build -O "${flags[@]}"
bin_dir=target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
  cp "$bin_dir/$target" "$OUT/"
  # a fast target (boundary_fast) starts from its full target's seeds
  seeds="../corpus/fuzz/${target%_fast}"
  if [ -d "$seeds" ]; then
    (cd "$seeds" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
