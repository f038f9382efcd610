#!/usr/bin/env bash
# What the fuzz targets reach: for each target, `cargo fuzz coverage` over
# its working corpus (fuzz/corpus/<target>, what fuzz/campaign.sh grew) and
# its seeds, then `llvm-cov` over the suite's reference and judge, summed
# up by coverage_summary.py: a Markdown table on stdout (lines and regions
# of the reference and of the judge reached) and, per target, the lines no
# input reached in fuzz/coverage/<target>/unreached.txt.
#
#   fuzz/coverage.sh [targets...]        (default: every target)
#
# Needs llvm-tools (`rustup component add llvm-tools-preview`). Coverage
# on stable has lines and regions, not branches (branch coverage is a
# nightly-only `-Z coverage-options=branch`).
set -euo pipefail
cd "$(dirname "$0")"
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
sysroot=$(rustc --print sysroot)
llvm_bin="$sysroot/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
if [ ! -x "$llvm_bin/llvm-cov" ]; then
  echo "llvm-cov is missing: rustup component add llvm-tools-preview" >&2
  exit 2
fi
export TMPDIR=${TMPDIR:-/dev/shm}
for t in "${targets[@]}"; do
  seeds="../corpus/fuzz/${t%_fast}"
  mkdir -p "corpus/$t" "$seeds" "coverage/$t"
  cargo fuzz coverage -O -s none "$t" "corpus/$t" "$seeds" >"coverage/$t/build.log" 2>&1 || {
    echo "cargo fuzz coverage $t failed: fuzz/coverage/$t/build.log" >&2
    exit 1
  }
  bin="target/x86_64-unknown-linux-gnu/coverage/x86_64-unknown-linux-gnu/release/$t"
  "$llvm_bin/llvm-cov" export -format=lcov "$bin" \
    -instr-profile="coverage/$t/coverage.profdata" >"coverage/$t/lcov.info"
done
python3 coverage_summary.py "${targets[@]}"
