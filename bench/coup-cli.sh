#!/usr/bin/env bash
# coup-cli's own loop and koth (through sdk/coup-cli/adapter.js, --rules coupcli)
# on the same bot folders, in the same minute: games/s, games per core-second (all
# the CPU the machine used during the run: koth and every bot process) and mean
# scores side by side; koth with the adapter playing up to 64 games at once (1 and
# 2 threads) and one game at a time.
#
#   bench/coup-cli.sh COUP_CLI_CHECKOUT [BOTS_DIR] [GAMES]
#
# COUP_CLI_CHECKOUT is a copy of github.com/dominikwilkowski/coup-cli (its loop
# plays every bot of its bots/ folder); BOTS_DIR defaults to the three test bots of
# crates/cli/tests/coup-cli/bots. Build koth first: cargo build --release.
#
# THINK_US=N makes every bot spend N microseconds of CPU on each call before it
# answers (a wrapper around its class, the same in both engines), to see how the
# two compare for bots that do real work rather than answer at once.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="$(cd "${1:?usage: bench/coup-cli.sh COUP_CLI_CHECKOUT [BOTS_DIR] [GAMES]}" && pwd)"
bots="$(cd "${2:-$here/crates/cli/tests/coup-cli/bots}" && pwd)"
games="${3:-5000}"
koth="${KOTH:-$here/target/release/koth}"
[ -f "$cli/src/bin.js" ] || { echo "$cli is not a coup-cli checkout (no src/bin.js)" >&2; exit 1; }
[ -x "$koth" ] || { echo "build koth first: cargo build --release" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

think="${THINK_US:-0}"
if [ "$think" != 0 ]; then
  # Each bot's index.js becomes inner.js (its relative requires still resolve),
  # and a new index.js spins THINK_US microseconds before every method.
  cp -r "$bots" "$work/thinking"
  for b in "$work"/thinking/*/; do
    mv "$b/index.js" "$b/inner.js"
    cat > "$b/index.js" <<JS
const Bot = require('./inner.js');
for (const m of Object.getOwnPropertyNames(Bot.prototype)) {
  if (!m.startsWith('on')) continue;
  const f = Bot.prototype[m];
  Bot.prototype[m] = function (...args) {
    const end = process.hrtime.bigint() + ${think}000n;
    while (process.hrtime.bigint() < end);
    return f.apply(this, args);
  };
}
module.exports = exports = Bot;
JS
  done
  bots="$work/thinking"
fi

# coup-cli plays the bots in its own bots/ folder.
cp -r "$cli" "$work/coup-cli"
rm -rf "$work/coup-cli/bots" && cp -r "$bots" "$work/coup-cli/bots"
names=$(ls "$bots")
n=$(echo "$names" | wc -l)

# koth: the same folders, a table of every bot, coup-cli's rules; t1.toml has the
# adapter play one game at a time (as before koth played many games at once).
mkdir -p "$work/field" && cp -r "$bots" "$work/field/bots"
for at_once in 64 1; do
  {
    printf '[tournament]\ngames = %s\ntable_size = %s\nrules = "coupcli"\n' "$games" "$n"
    for b in $names; do
      printf '\n[[bot]]\nname = "%s"\ncommand = ["node", "%s/sdk/coup-cli/adapter.js", "bots/%s"]\ndir = "field"\n' "$b" "$here" "$b"
      printf 'env = { KOTH_GAMES_AT_ONCE = "%s" }\n' "$at_once"
    done
  } > "$work/t$at_once.toml"
done

# CPU time used on the whole machine (every process: koth, the bots, anything
# else running), in hundredths of a second, from /proc/stat.
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
per_core() { python3 -c "import sys; g, b = int(sys.argv[1]), int(sys.argv[2]); print(f'  {b / 100:.2f} s of CPU on the machine: {g / (b / 100):.0f} games per core-second')" "$1" "$2"; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(node --version); bots think ${think} µs a call"
b0=$(busy)
start=$(date +%s.%N)
(cd "$work/coup-cli" && node src/bin.js loop -r "$games" > "$work/cli.out" 2>/dev/null)
end=$(date +%s.%N)
b1=$(busy)
echo
python3 -c "import sys; g, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); print(f'coup-cli loop, 1 core: {g} games in {b - a:.2f} s ({g / (b - a):.0f} games/s)')" "$games" "$start" "$end"
per_core "$games" $((b1 - b0))
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$work/cli.out" | grep '%' | grep -v 'done' | tail -n "$n" | awk -v g="$games" '{printf "  %-12s wins %s  mean score %+.4f\n", $3, $1, $2 / g}'
for run in "64 1" "64 2" "1 2"; do
  set -- $run
  echo
  if [ "$1" = 1 ]; then what="one game at a time"; else what="up to $1 games at once"; fi
  echo "koth --rules coupcli, $2 thread(s), $what:"
  b0=$(busy)
  "$koth" run "$work/t$1.toml" -q --threads "$2" --summary-json "$work/k.json" > /dev/null 2> "$work/koth.err" || { cat "$work/koth.err" >&2; exit 1; }
  b1=$(busy)
  python3 - "$work/k.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"  {s['games']} games in {s['elapsed_seconds']:.2f} s ({s['games_per_second']:.0f} games/s)")
for r in s["standings"]:
    print(f"  {r['name']:<12} wins {100 * r['wins'] / r['games']:.3f}%  mean score {r['mean']:+.4f} ± {r['ci95']:.4f}")
PY
  per_core "$(python3 -c "import json; print(json.load(open('$work/k.json'))['games'])")" $((b1 - b0))
done
