#!/bin/sh
# How much --duplicate narrows the intervals: the same games and seeds with and
# without it, the ratio of the interval half-widths per bot (median, min, max).
#   KOTH=target/release/koth bench/duplicate.sh
K=${KOTH:-koth}
tmp=$(mktemp -d)
run() { # bots games seed label
  $K coup loop --bots "$1" --games "$2" --seed "$3" -q --summary-json "$tmp/p.json" >/dev/null 2>&1
  $K coup loop --bots "$1" --games "$2" --seed "$3" -q --duplicate --summary-json "$tmp/d.json" >/dev/null 2>&1
  python3 - "$tmp" "$4 seed $3" <<'PY'
import json, statistics, sys
d, label = sys.argv[1], sys.argv[2]
a = json.load(open(d + "/p.json")); b = json.load(open(d + "/d.json"))
ha = {r["name"]: r["ci95"] for r in a["standings"]}
hb = {r["name"]: r["ci95"] for r in b["standings"]}
rs = [hb[n] / ha[n] for n in ha]
print("%s: median ratio %.2f (min %.2f, max %.2f)" % (label, statistics.median(rs), min(rs), max(rs)))
PY
}
for s in 1 2 3; do run economist,honest 20000 $s "2 bots, 2 seats"; done
for s in 1 2 3; do run economist,counter,honest,skeptic 20000 $s "4 bots, 4 seats"; done
for s in 1 2 3; do run economist,counter,honest,skeptic,challenger,bluffer 60000 $s "6 bots, 6 seats"; done
rm -rf "$tmp"
