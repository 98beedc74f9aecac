#!/bin/bash
# Do two quick runs of one binary compare as unchanged? The A/A figures of docs/noise.md
# ("Quick mode at the process level"), in one go:
#
#   scripts/quick-aa.sh TIMESHARE SCRATCH_DIR [RUNS]
#
# RUNS (default 4) back-to-back `run --quick` of the whole catalogue (or of SELECTION, env)
# into one fresh database, each timed, then `compare` of each run with the next: the
# share of ids called changed (target <= 5%). The first comparison is of two runs on a
# new database (neither learned how far this machine's runs differ); from the third run
# on, a run has learned that from the runs before it.
#
# Environment: BUSY=N starts N busy loops (`yes > /dev/null`) beside the runs, stopped at
# the end; ARGS adds options to every run (e.g. `--invocations 1`: one process, the
# quick mode before); COMPARE=BINARY compares with another build as well (the rule of
# that build on the same stored runs); SELECTION (default: everything). The load
# average is printed beside every figure: on a busy machine the figures describe that
# machine. ALT_ARGS with ALT_RUNS=M (default 2): after each of the first M runs, one run
# with ALT_ARGS instead (e.g. `--invocations 1`) into a second database, labelled p1…pM,
# compared the same way: the two kinds measured alternately, for a like-for-like time.
set -u
T=${1:?usage: quick-aa.sh TIMESHARE SCRATCH_DIR [RUNS]}
S=${2:?usage: quick-aa.sh TIMESHARE SCRATCH_DIR [RUNS]}
N=${3:-4}
T=$(realpath "$T")
mkdir -p "$S"
S=$(realpath "$S")
DB=$S/quick-aa.db
DB2=$S/quick-aa-alt.db
rm -f "$DB" "$DB2"
export HOME=$S
load() { cut -d' ' -f1-3 /proc/loadavg; }
secs() { date +%s.%N; }
took() { python3 -c "print(f'{$2 - $1:.1f}')"; }

busy=()
for _ in $(seq "${BUSY:-0}"); do
    yes >/dev/null &
    busy+=($!)
done
stop_busy() { for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done; }
trap stop_busy EXIT

echo "binary: $T ($("$T" --version 2>/dev/null)); busy loops: ${#busy[@]}; args: ${ARGS:-}"
echo "nproc: $(nproc); load at start: $(load)"
# shellcheck disable=SC2086
for i in $(seq "$N"); do
    s=$(secs)
    "$T" run ${SELECTION:-} --quick ${ARGS:-} --db "$DB" --dir "$S" --label "q$i" \
        >"$S/q$i.out" 2>&1
    echo "run q$i: rc=$? $(took "$s" "$(secs)") s, load $(load)"
    grep -h 'earlier runs of these rows\|processes only' "$S/q$i.out" | cut -c1-160 | sed 's/^/    /'
    if [ -n "${ALT_ARGS:-}" ] && [ "$i" -le "${ALT_RUNS:-2}" ]; then
        s=$(secs)
        "$T" run ${SELECTION:-} --quick $ALT_ARGS --db "$DB2" --dir "$S" --label "p$i" \
            >"$S/p$i.out" 2>&1
        echo "run p$i ($ALT_ARGS): rc=$? $(took "$s" "$(secs)") s, load $(load)"
    fi
done

compare() {
    local bin=$1 tag=$2 db=${3:-$DB} x=${4:-q} n=${5:-$N}
    for ((i = 1; i < n; i++)); do
        local out=$S/compare-$tag-$x$i.out
        "$bin" compare "$x$i" "$x$((i + 1))" --db "$db" >"$out" 2>&1
        echo "    $x$i vs $x$((i + 1)): $(grep -E '[0-9]+ ids tested' "$out")"
        grep -E 'faster \(p|slower \(p' "$out" | sed 's/  */ /g' | cut -c1-150 | head -25 | sed 's/^/        /'
    done
}
echo "compare (this build), load $(load):"
compare "$T" this
if [ -n "${ALT_ARGS:-}" ]; then
    echo "compare of the runs with $ALT_ARGS (this build):"
    compare "$T" this "$DB2" p "${ALT_RUNS:-2}"
fi
if [ -n "${COMPARE:-}" ]; then
    echo "compare ($COMPARE), load $(load):"
    compare "$(realpath "$COMPARE")" other
    [ -n "${ALT_ARGS:-}" ] && compare "$(realpath "$COMPARE")" other "$DB2" p "${ALT_RUNS:-2}"
fi
echo "load at end: $(load)"
