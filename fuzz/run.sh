#!/usr/bin/env bash
# run.sh — run both libFuzzer targets for SECONDS each (default 600), side by side, each
# on one core, starting from a copy of the corpus in fuzz/corpus/<target> (new inputs
# go to the copy; fold useful ones back by hand with -merge=1), and write the record of
# the run to bench/security/fuzz-<date>.md: command, duration, executions, coverage,
# corpus size and findings (crash-*, leak-*, timeout-* files).
# Usage: fuzz/run.sh BUILD_DIR_WITH_FUZZERS [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
secs=${2:-600}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
work=$(mktemp -d /tmp/fdw-fuzz-run-XXXXXX)
record=bench/security/fuzz-$stamp.md
mkdir -p bench/security
{
    echo "# Fuzzing run $stamp"
    echo
    echo "Commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- engine server fuzz || echo ' (with uncommitted changes)'),"
    echo "clang $(clang --version | head -1 | sed 's/.*version //'), ASan + UBSan, libFuzzer, one core each, $(nproc) cores on the machine."
    echo
    echo "| target | command | seconds | executions | exec/s | coverage (cov / ft) | corpus | findings |"
    echo "|---|---|---|---|---|---|---|---|"
} > "$record"
run_one() {
    local t=$1
    mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
    cp fuzz/corpus/$t/* "$work/$t/corpus/"
    local cmd="$bin/fuzz_$t -max_total_time=$secs -rss_limit_mb=4096 -timeout=20 -max_len=65536 -print_final_stats=1 -artifact_prefix=$work/$t/artifacts/ $work/$t/corpus"
    echo "fuzz/run.sh: $cmd"
    local start=$(date +%s) rc=0
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        $cmd > "$work/$t/log" 2>&1 || rc=$?
    echo "$rc $(( $(date +%s) - start ))" > "$work/$t/result"
}
run_one spec &
run_one http &
wait
for t in spec http; do
    read -r rc took < "$work/$t/result"
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t/log" | grep -o '[0-9]*$' || echo "?")
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/$t/log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/$t/log" | tail -1 | sed 's/cov: //; s/ ft: / \/ /')
    ncorp=$(ls "$work/$t/corpus" | wc -l)
    found=$(ls "$work/$t/artifacts" | tr '\n' ' ')
    [ -z "$found" ] && found="none (exit $rc)"
    echo "| fuzz_$t | \`fuzz_$t -max_total_time=$secs -rss_limit_mb=4096 -timeout=20 -max_len=65536 CORPUS\` | $took | $execs | $rate | $cov | $ncorp inputs | $found |" >> "$record"
    tail -3 "$work/$t/log"
done
{
    echo
    echo "Logs and the grown corpora: $work (not kept in the repository)."
} >> "$record"
echo "fuzz/run.sh: record written to $record"
