#!/usr/bin/env bash
# The hill's speed against a plain run of the same field (docs/hill.md, "How far
# one machine goes"): `koth hill play` on a fresh hill and `koth coup run` of the
# same four entrants at four seats with duplicate deals, interleaved ROUNDS times,
# each with its wall time, the machine's busy and idle core-seconds (from
# /proc/stat: koth and every bot process) and the hill's share of run's speed.
#
#   bench/hill-vs-run.sh [python|builtins] [GAMES] [ROUNDS]
#
# BLOCK=N makes the hill's blocks N games (koth hill init --block; default 1000),
# BUILTIN_BLOCK=N those of built-ins only (--builtin-block; default 20000). The
# hill plays whole blocks, so it may store a few more games than asked: speeds
# are games a second, each side's own count. Games differ in length (a game of
# Coup takes from a few dozen decisions to the turn cap's thousands, and the two
# sides play different deals), so each round also gives the ratio of decisions a
# second, the work both sides did: the fairer figure of the two.
# python: the SDK's Python example bot and three built-ins (default 8000 games);
# builtins: honest, economist, random and counter (default 100000 games).
# Build koth first: cargo build --release.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
field="${1:-python}"
koth="${KOTH:-$here/target/release/koth}"
[ -x "$koth" ] || { echo "build koth first: cargo build --release" >&2; exit 1; }
case "$field" in
  python) games="${2:-8000}" ;;
  builtins) games="${2:-100000}" ;;
  *) echo "field: python or builtins" >&2; exit 2 ;;
esac
rounds="${3:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "cores $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg), $field field, $games games"

# Runs "$@"; prints wall seconds, busy and idle core-seconds of the whole machine.
measure() {
  local s0 s1 t0 t1
  s0=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  s1=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat)
  awk -v a="$s0" -v b="$s1" -v t0="$t0" -v t1="$t1" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    printf "%.2f %.1f %.1f\n", t1 - t0, (y[1] - x[1]) / 100, (y[2] - x[2]) / 100 }'
}

# The decisions of every game record on standard input.
decisions() { grep -o '"decisions":[0-9]*' | awk -F: '{ n += $2 } END { print n + 0 }'; }

for r in $(seq "$rounds"); do
  hill="$work/hill-$r"
  "$koth" hill init "$hill" --game coup --block "${BLOCK:-1000}" \
    --builtin-block "${BUILTIN_BLOCK:-20000}" >/dev/null 2>&1
  if [ "$field" = python ]; then
    "$koth" hill add "$hill" py "python3 $here/sdk/python/example_bot.py" >/dev/null 2>&1
    bots=(honest economist random)
    run_field=(--bot "py=cmd:python3 $here/sdk/python/example_bot.py" --builtin honest,economist,random)
  else
    bots=(honest economist random counter)
    run_field=(--builtin honest,economist,random,counter)
  fi
  for b in "${bots[@]}"; do "$koth" hill add "$hill" "$b" "builtin:$b" >/dev/null; done
  read -r hw hb hi <<<"$(measure "$koth" hill play "$hill" --games "$games" -q)"
  hg="$("$koth" hill status "$hill" | sed -n 's/^\([0-9]*\) games stored.*/\1/p')"
  hd="$("$koth" hill games "$hill" | decisions)"
  read -r rw rb ri <<<"$(measure "$koth" coup run "${run_field[@]}" --games "$games" \
    --table-size 4 --duplicate -q --out "$work/run-$r")"
  rg="$(wc -l <"$work/run-$r/games.jsonl")"
  rd="$(decisions <"$work/run-$r/games.jsonl")"
  awk -v r="$r" -v hw="$hw" -v hb="$hb" -v hi="$hi" -v rw="$rw" -v rb="$rb" -v ri="$ri" \
    -v hg="$hg" -v rg="$rg" -v hd="$hd" -v rd="$rd" 'BEGIN {
    printf "round %s: hill %d games (%.0f decisions each) %.2f s (busy %.1f, idle %.1f)  run %d games (%.0f) %.2f s (busy %.1f, idle %.1f)  hill/run games/s %.0f%%, decisions/s %.0f%%\n",
      r, hg, hd / hg, hw, hb, hi, rg, rd / rg, rw, rb, ri, 100 * (hg / hw) / (rg / rw), 100 * (hd / hw) / (rd / rw) }'
done
