#!/bin/bash
# The figures of docs/noise.md ("What it must show"), in one go, on a given binary:
#
#   scripts/noise-must-show.sh TIMESHARE SCRATCH_DIR [RUNS]
#
# (a) each id's headline CI contains the other full runs' medians (target >= 90% of ids)
# (b) the full runs' medians lie within 5% of each other (target >= 80% of ids)
# (c) A/A: `compare` of two full runs of the same build calls <= 5% of ids changed
# (d) `ab` of the binary against itself: >= 95% of ids "no change"
# (e) `selftest noise.aa`: the A/A self-check and an injected 10% slowdown found
# (f) the time of a quick and of a full `run syscall`
#
# RUNS (default 3) back-to-back `run syscall --full`, after SEED (env, default 3) earlier
# full runs stored in the same database: a full run's interval learns how far runs differ
# from the earlier runs of this machine (docs/noise.md, "The run level"), so the first
# runs on a new database have only their processes' interval. SKIP_SELFTEST=1 leaves out
# (e), which takes minutes. Everything goes to SCRATCH_DIR (a
# database, the outputs); HOME points there for the runs of the binary. The load average
# is printed beside every figure: on a busy machine the figures describe that machine.
set -u
T=${1:?usage: noise-must-show.sh TIMESHARE SCRATCH_DIR [RUNS]}
S=${2:?usage: noise-must-show.sh TIMESHARE SCRATCH_DIR [RUNS]}
N=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
T=$(realpath "$T")
mkdir -p "$S"
S=$(realpath "$S")
DB=$S/must-show.db
rm -f "$DB"
export HOME=$S
load() { cut -d' ' -f1-3 /proc/loadavg; }
secs() { date +%s.%N; }
took() { python3 -c "print(f'{$2 - $1:.1f}')"; }

echo "binary: $T ($("$T" --version 2>/dev/null))"
echo "nproc: $(nproc); load at start: $(load)"

# (f) quick, before anything else.
s=$(secs); "$T" run syscall --quick --no-save --dir "$S" >"$S/quick.out" 2>&1
echo "(f) quick run syscall: rc=$? $(took "$s" "$(secs)") s, load $(load)"

SEED=${SEED:-3}
for i in $(seq "$SEED"); do
    s=$(secs)
    "$T" run syscall --full --db "$DB" --dir "$S" --label "seed$i" >"$S/seed$i.out" 2>&1
    echo "    earlier run seed$i: rc=$? $(took "$s" "$(secs)") s, load $(load)"
done

runs=()
for i in $(seq "$N"); do
    s=$(secs)
    "$T" run syscall --full --db "$DB" --dir "$S" --label "full$i" >"$S/full$i.out" 2>&1
    rc=$?
    echo "(f) full run syscall #$i: rc=$rc $(took "$s" "$(secs)") s, load $(load)"
    grep -h 'drifted' "$S/full$i.out" | sed 's/^/    /'
    runs+=("full$i")
done

echo "(a)(b) agreement of ${runs[*]} (load $(load)):"
python3 "$here/agreement.py" --timeshare "$T" --db "$DB" "${runs[@]}" >"$S/agreement.out"
sed 's/^/    /' "$S/agreement.out"

echo "(c) A/A compare, load $(load):"
for ((i = 1; i < N; i++)); do
    "$T" compare "full$i" "full$((i + 1))" --db "$DB" >"$S/compare$i.out" 2>&1
    echo "    full$i vs full$((i + 1)): $(grep -E '[0-9]+ ids tested' "$S/compare$i.out")"
done

s=$(secs)
"$T" ab self self syscall --dir "$S" >"$S/ab.out" 2>&1
echo "(d) ab self self syscall: rc=$? $(took "$s" "$(secs)") s, load $(load)"
grep -E '[0-9]+ ids tested' "$S/ab.out" | sed 's/^/    /'

if [ "${SKIP_SELFTEST:-0}" != 1 ]; then
    s=$(secs)
    "$T" selftest noise.aa >"$S/selftest.out" 2>&1
    echo "(e) selftest noise.aa: rc=$? $(took "$s" "$(secs)") s, load $(load)"
    sed 's/^/    /' "$S/selftest.out"
fi

echo "invocation medians of three ids (ns, sorted), per run:"
for r in "${runs[@]}"; do
    "$T" export "$r" --db "$DB" | python3 -c '
import json, sys
run = sys.argv[1]
for r in json.load(sys.stdin)["results"]:
    if r["id"] in ("syscall.getpid", "syscall.args.6", "syscall.setuid") and r.get("invocations"):
        m = sorted(round(w["median"] * 1e9, 1) for w in r["invocations"]["within"])
        s = r["summary"]
        rid, med, lo, hi = r["id"], s["median"] * 1e9, s["ci_low"] * 1e9, s["ci_high"] * 1e9
        print(f"    {run} {rid:16} headline {med:7.1f} [{lo:.1f}, {hi:.1f}]  {m}")
' "$r"
done
echo "load at end: $(load)"
