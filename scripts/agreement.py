#!/usr/bin/env python3
"""Do three (or more) stored runs of the same selection agree?

    scripts/agreement.py [--db FILE] [--timeshare PATH] [--spread 0.05] RUN RUN RUN...

RUN is anything `timeshare export` takes (an id, a label, `last`). For every id measured
with a figure in every run (derived rows and rows below resolution left out), it prints
whether each run's headline 95% CI contains the other runs' medians, the spread of the
medians ((max - min) / min), and then the two shares the README quotes: ids whose CIs
contain the others' medians, and ids whose medians lie within --spread. The same
arithmetic as `model::agreement::agreement` in the Rust sources.
"""
import argparse
import json
import subprocess
import sys


def export(timeshare, db, run):
    cmd = [timeshare, "export", run]
    if db:
        cmd += ["--db", db]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)


def usable(r):
    return (r.get("status") or {}).get("state") == "ok" and not r.get("derived") \
        and not r.get("below_resolution") and r.get("summary")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+")
    p.add_argument("--db")
    p.add_argument("--timeshare", default="timeshare")
    p.add_argument("--spread", type=float, default=0.05)
    a = p.parse_args()
    if len(a.runs) < 2:
        sys.exit("give at least two runs")
    runs = [export(a.timeshare, a.db, r) for r in a.runs]
    rows = [{r["id"]: r for r in run["results"] if usable(r)} for run in runs]
    ids = [i for i in rows[0] if all(i in r for r in rows)]
    contained = within = 0
    for i in ids:
        s = [r[i]["summary"] for r in rows]
        medians = [x["median"] for x in s]
        inside = all(x["ci_low"] <= m <= x["ci_high"]
                     for k, x in enumerate(s) for j, m in enumerate(medians) if j != k)
        spread = (max(medians) - min(medians)) / min(medians)
        contained += inside
        within += spread <= a.spread
        ci = max((x["ci_high"] - x["ci_low"]) / 2 / x["median"] for x in s)
        print(f"{i:28} spread {spread * 100:6.1f}%  widest CI ±{ci * 100:5.1f}%  "
              f"{'contains the others' if inside else 'misses'}")
    n = len(ids)
    print(f"{n} ids; CIs contain the other runs' medians: {contained}/{n} "
          f"({contained / max(n, 1) * 100:.0f}%); medians within {a.spread * 100:.0f}%: "
          f"{within}/{n} ({within / max(n, 1) * 100:.0f}%)")


if __name__ == "__main__":
    main()
