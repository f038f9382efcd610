#!/usr/bin/env bash
# The nightly fuzzing campaign: runs every target for a given time, a few at
# a time, on a working corpus (fuzz/corpus/<target>, kept between nights and
# minimized with cmin after each run) seeded by corpus/fuzz/<target>,
# minimizes each crash into corpus/findings/<target>/ (open findings: each
# moves to corpus/regressions/ with its fix), and prints a summary table.
# It exits 1 when a target found something or stopped before its time
# (a crash, an out-of-memory, a timeout, a build or start failure), naming
# each such target: a campaign never ends quietly short.
#
#   fuzz/campaign.sh [seconds per target] [targets at once]
#
# Stable, no sanitizer (what CI can run):  fuzz/campaign.sh 600 2
# Nightly with AddressSanitizer:            TOOLGATE_FUZZ_SANITIZER=address TOOLGATE_FUZZ_TOOLCHAIN=nightly fuzz/campaign.sh 600 2
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
parallel=${2:-$(nproc)}
sanitizer=${TOOLGATE_FUZZ_SANITIZER:-none}
toolchain=${TOOLGATE_FUZZ_TOOLCHAIN:-stable}
targets=${TOOLGATE_FUZZ_TARGETS:-"serializer serializer_scenario call registry scenario boundary boundary_fast pipeline pipeline_fast workspace workspace_fast action_text actions"}
# The workspace and actions oracles make real files (a tree per input, a
# SQLite database per input): on a disk most of their time is the file
# system's (8x their rate on tmpfs, measured 2026-12-05), so their
# temporary directories go to memory where there is some.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
logs=campaign-logs
mkdir -p "$logs"

# the build ClusterFuzzLite makes (.clusterfuzzlite/build.sh: the targets
# it builds without compare tracing included), run here as it copies them
bin="$PWD/target/campaign-bin/$sanitizer"
OUT="$bin" SANITIZER="$sanitizer" RUSTUP_TOOLCHAIN="$toolchain" TOOLGATE_FUZZ_SEEDS=0 \
  ../.clusterfuzzlite/build.sh >"$logs/build.log" 2>&1 || {
  echo "the fuzz targets did not build: fuzz/$logs/build.log" >&2
  tail -20 "$logs/build.log" >&2
  exit 1
}
# what libFuzzer is given in a run, a minimization and a merge alike
limits=(-max_len=65536 -timeout=10 -rss_limit_mb=4096)

run_target() {
  local t=$1 started=$SECONDS status=0
  # a fast target (boundary_fast) starts from its full target's seeds
  local seeds="../corpus/fuzz/${t%_fast}"
  mkdir -p "corpus/$t" "artifacts/$t" "$seeds"
  # new inputs land in corpus/<t> (scratch); the committed seeds are read
  "$bin/$t" "corpus/$t" "$seeds" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" "${limits[@]}" >"$logs/$t.log" 2>&1 || status=$?
  echo "$status $((SECONDS - started))" >"$logs/$t.status"
}

running=0
for t in $targets; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n; running=$((running - 1)); fi
done
wait

printf '| target | seconds | runs | exec/s | coverage | features | working corpus (after cmin) | new findings |\n'
printf '|---|---|---|---|---|---|---|---|\n'
short=()
for t in $targets; do
  log="$logs/$t.log"
  read -r status ran <"$logs/$t.status"
  # a target killed outright (a stack overflow under `-s none`) prints no
  # final stats: every figure may be missing, and a missing one must not
  # end the summary (pipefail): it shows as `?`, the last pulse's if any
  stat() { { grep -o "$1 *[0-9]*" "$log" || true; } | awk '{print $NF}' | tail -1; }
  runs=$(stat 'stat::number_of_executed_units:')
  eps=$(stat 'stat::average_exec_per_sec:')
  last=$({ grep -E '^#[0-9]+' "$log" || true; } | tail -1)
  cov=$({ echo "$last" | grep -o 'cov: [0-9]*' || true; } | awk '{print $2}')
  ft=$({ echo "$last" | grep -o 'ft: [0-9]*' || true; } | awk '{print $2}')
  if [ -z "$runs" ]; then
    runs=$({ echo "$last" | grep -oE '^#[0-9]+' || true; } | tr -d '#')
    eps=$({ echo "$last" | grep -o 'exec/s: [0-9]*' || true; } | awk '{print $2}')
  fi
  # keep the working corpus (fuzz/corpus/<t>, not committed) minimal: the
  # committed seeds stay the ones written from the cases
  before=$(ls "corpus/$t" | wc -l)
  rm -rf "corpus/$t.cmin" && mkdir "corpus/$t.cmin"
  if "$bin/$t" -merge=1 "${limits[@]}" "corpus/$t.cmin" "corpus/$t" >"$logs/$t.cmin.log" 2>&1; then
    rm -rf "corpus/$t" && mv "corpus/$t.cmin" "corpus/$t"
  else
    rm -rf "corpus/$t.cmin"
  fi
  after=$(ls "corpus/$t" | wc -l)
  findings=0
  for crash in artifacts/"$t"/crash-* artifacts/"$t"/oom-* artifacts/"$t"/timeout-*; do
    [ -e "$crash" ] || continue
    findings=$((findings + 1))
    name=$(basename "$crash")
    # (no -max_len: libFuzzer's minimization asserts on it and writes an
    # empty "minimized" input, seen 2026-12-06)
    rm -f artifacts/"$t"/minimized-from-*
    "$bin/$t" -minimize_crash=1 -runs=2000 -artifact_prefix="artifacts/$t/" -timeout=10 -rss_limit_mb=4096 "$crash" \
      >"$logs/$t.$name.tmin.log" 2>&1 || true
    # the minimized input only when it is not empty and still fails; else
    # the original is kept
    minimized=$(ls -t artifacts/"$t"/minimized-from-* 2>/dev/null | head -1 || true)
    if [ -n "$minimized" ] && { [ ! -s "$minimized" ] ||
      "$bin/$t" -runs=1 -timeout=10 -rss_limit_mb=4096 "$minimized" >/dev/null 2>&1; }; then
      minimized=""
    fi
    mkdir -p "../corpus/findings/$t"
    cp "${minimized:-$crash}" "../corpus/findings/$t/$name"
    # the artifact is kept in corpus/findings/, not found again next night
    mv "$crash" "$logs/$t.$name"
    echo "- \`$t/$name\` (found $(date -u +%F) by fuzz/campaign.sh): replay with \`cd fuzz && cargo fuzz run -s $sanitizer $t ../corpus/findings/$t/$name\`" >>../corpus/findings/README.md
  done
  printf '| %s | %s | %s | %s | %s | %s | %s (from %s) | %s |\n' "$t" "$ran" "${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "$after" "$before" "$findings"
  # libFuzzer stops at its first finding; a target that exited otherwise
  # before its time (a build error, an oracle panic outside libFuzzer's
  # hooks, a killed process) is reported the same way
  if [ "$findings" -gt 0 ] || [ "$status" -ne 0 ] || [ "$ran" -lt "$seconds" ]; then
    why="$findings finding(s)"
    if [ "$findings" -eq 0 ] && grep -q 'exited with signal' "$log"; then
      # libFuzzer's handlers could not run (no input saved): a stack
      # overflow does this without a sanitizer's alternate stack
      why="killed by $(grep -o 'exited with signal: [0-9]* ([A-Z]*)' "$log" | tail -1 | sed 's/exited with //'), no input saved (AddressSanitizer saves one)"
    fi
    short+=("$t: exit $status after $ran of $seconds s, $why; log: fuzz/$log")
  fi
done

if [ "${#short[@]}" -gt 0 ]; then
  printf '\ntargets that found something or stopped early:\n' >&2
  printf '  %s\n' "${short[@]}" >&2
  exit 1
fi
