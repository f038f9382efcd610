#!/bin/bash -eu
# Builds every toolgate fuzz target, for ClusterFuzzLite and for the
# nightly campaign (fuzz/campaign.sh, which runs what this copies):
# `cargo fuzz build -O` with the sanitizer the engine asks for, then copies
# each binary and its seed corpus (from the conformance corpus) to $OUT.
# In the ClusterFuzzLite image the repository is $SRC/toolgate; locally,
# this script's own checkout (OUT must be set: OUT=/tmp/out
# .clusterfuzzlite/build.sh). TOOLGATE_FUZZ_SEEDS=0 skips the seed zips.
if [ -d "${SRC:-/nonexistent}/toolgate/fuzz" ]; then cd "$SRC/toolgate/fuzz"; else cd "$(dirname "$0")/../fuzz"; fi
mkdir -p "$OUT"
sanitizer="${SANITIZER:-address}"
# Without a sanitizer the targets allocate through mimalloc (the fuzz
# crate's `fast-alloc`: glibc's malloc and free were a fifth to a quarter
# of the fast targets' time); a sanitizer keeps its own allocator.
if [ "$sanitizer" = "none" ]; then flags=(-s none --features fast-alloc);
elif [ "$sanitizer" = "coverage" ]; then flags=(-s none);
else flags=(-s "$sanitizer"); fi
# Some targets are built without compare tracing, in a target directory of
# their own (other flags would rebuild the rest): the fast targets, where
# half of an input's time went to tracing its comparisons (perf,
# 2026-12-05; pipeline_fast ran 2,446 exec/s against 1,277 and reached more
# coverage in the same minute), and the serializer, where the tracing of
# the string-quoting loop took 55% (38,945 exec/s against 19,413 from an
# empty corpus over two minutes, with the same coverage, 2,253 and 2,255);
# and actions and workspace_fast (one minute side by side from the seeds,
# 2026-12-05: 3,079 exec/s against 2,205, and 1,246 against 1,031, each
# reaching a little more).
untraced=${TOOLGATE_FUZZ_UNTRACED-"serializer boundary_fast pipeline_fast workspace_fast actions"}
cargo fuzz build -O "${flags[@]}"
for target in $untraced; do
  cargo fuzz build -O "${flags[@]}" --no-trace-compares --target-dir target/untraced "$target"
done
for target in $(cargo fuzz list); do
  dir=target
  if [[ " $untraced " == *" $target "* ]]; then dir=target/untraced; fi
  cp "$dir/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  # a fast target (boundary_fast) starts from its full target's seeds
  seeds="../corpus/fuzz/${target%_fast}"
  if [ "${TOOLGATE_FUZZ_SEEDS:-1}" != 0 ] && [ -d "$seeds" ]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "$seeds" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
