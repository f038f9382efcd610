#!/usr/bin/env bash
# The Action's second step: `toolgate run` with the inputs (INPUT_*), the
# reports written under INPUT_REPORTS, the Markdown one appended to the job
# summary, and toolgate's exit code both returned and set as the step's
# `exit-code` output.
set -uo pipefail
: "${INPUT_IMPL:?the adapter command}" "${GITHUB_STEP_SUMMARY:?the job summary file}"
reports="${INPUT_REPORTS:-toolgate-reports}"
mkdir -p "$reports"
args=(run --impl "$INPUT_IMPL" --no-progress
  --markdown "$reports/report.md" --json "$reports/report.json" --junit "$reports/report.xml")
IFS=',' read -ra suites <<<"${INPUT_SUITE:-}"
for suite in "${suites[@]}"; do
  suite="${suite// /}"
  [ -n "$suite" ] && args+=(--suite "$suite")
done
[ -n "${INPUT_EXPECTED_FAILURES:-}" ] && args+=(--expected-failures "$INPUT_EXPECTED_FAILURES")
if [ "${INPUT_GENERATE:-0}" != "0" ]; then
  args+=(--generate "$INPUT_GENERATE" --seed "${INPUT_SEED:-${GITHUB_RUN_NUMBER:-1}}")
fi
toolgate "${args[@]}"
code=$?
if [ -f "$reports/report.md" ]; then
  cat "$reports/report.md" >>"$GITHUB_STEP_SUMMARY"
else
  echo "toolgate wrote no report (exit code $code): see the step's log" >>"$GITHUB_STEP_SUMMARY"
fi
[ -n "${GITHUB_OUTPUT:-}" ] && echo "exit-code=$code" >>"$GITHUB_OUTPUT"
exit "$code"
