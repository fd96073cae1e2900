#!/usr/bin/env bash
# What playing many games at once on each process gains (docs/protocol.md, "Many
# games at once"): the same tournament of external bots played one game at a time
# (env KOTH_GAMES_AT_ONCE = "1") and with the bots' default of 64, in the same
# minute, with games/s and games per core-second (all the CPU the machine used:
# koth and every bot process).
#
#   bench/games-at-once.sh [GAMES] [THREADS]
#
# Tables: six copies of the JavaScript example bot, six of the Python one, and the
# three coup-cli test bots through the adapter (coupcli rules, GAMES times ten: its
# games are short). Build koth first:
# cargo build --release.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
games="${1:-2000}"
threads="${2:-2}"
koth="${KOTH:-$here/target/release/koth}"
[ -x "$koth" ] || { echo "build koth first: cargo build --release" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# CPU time used on the whole machine, in hundredths of a second, from /proc/stat.
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

# table NAME AT_ONCE: writes $work/NAME-AT_ONCE.toml
table() {
  local name="$1" at_once="$2" out="$work/$1-$2.toml"
  case "$name" in
    js | python)
      local cmd dir
      if [ "$name" = js ]; then cmd='["node", "example_bot.js"]'; dir="$here/sdk/js"; else cmd='["python3", "example_bot.py"]'; dir="$here/sdk/python"; fi
      printf '[tournament]\ngames = %s\ntable_size = 6\nseed = 1\n' "$games" > "$out"
      for i in 1 2 3 4 5 6; do
        printf '\n[[bot]]\nname = "%s%s"\ncommand = %s\ndir = "%s"\nenv = { KOTH_GAMES_AT_ONCE = "%s" }\n' "$name" "$i" "$cmd" "$dir" "$at_once" >> "$out"
      done
      ;;
    coup-cli)
      # Its games are about fifty times cheaper: ten times as many of them.
      printf '[tournament]\ngames = %s\ntable_size = 3\nseed = 1\nrules = "coupcli"\n' $((games * 10)) > "$out"
      for b in Grudge Namer Sloppy; do
        printf '\n[[bot]]\nname = "%s"\nprotocol = "coup-cli"\ncommand = ["bots/%s"]\ndir = "%s/crates/cli/tests/coup-cli"\nenv = { KOTH_GAMES_AT_ONCE = "%s" }\n' "$b" "$b" "$here" "$at_once" >> "$out"
      done
      ;;
  esac
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $games games a run ($((games * 10)) for coup-cli) on $threads thread(s)"
printf '%-10s %-22s %-22s %s\n' table "one game at a time" "64 games at once" "gain (games/s)"
for name in js python coup-cli; do
  line=$(printf '%-10s' "$name")
  rates=()
  for at_once in 1 64; do
    table "$name" "$at_once"
    b0=$(busy)
    "$koth" coup run "$work/$name-$at_once.toml" -q --threads "$threads" --summary-json "$work/s.json" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    b1=$(busy)
    read -r rate per_core < <(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); b=int(sys.argv[2])/100; print(f\"{s['games_per_second']:.0f} {s['games']/b:.0f}\")" "$work/s.json" $((b1 - b0)))
    rates+=("$rate")
    line+=$(printf ' %-22s' "$rate/s, $per_core/core-s")
  done
  line+=$(python3 -c "import sys; print(f' {float(sys.argv[2]) / float(sys.argv[1]):.1f}x')" "${rates[0]}" "${rates[1]}")
  echo "$line"
done
