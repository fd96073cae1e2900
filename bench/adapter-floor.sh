#!/usr/bin/env bash
# How much of the coup-cli adapter's cost is reading koth's JSON lines, and what it
# would cost if reading were free: plays GAMES games of coupcli rules among the bot
# folders of BOTS_DIR (a table of all of them), keeps every line koth sends the first
# bot's process, then replays that capture into the adapter three times each with
# and without JSON.parse (bench/adapter-replay.js: no pipe, no koth).
#
#   bench/adapter-floor.sh [BOTS_DIR] [GAMES]
#
# BOTS_DIR defaults to the three test bots of crates/cli/tests/coup-cli/bots; a
# coup-cli checkout's bots/ folder holds its example bots. Build koth first:
# cargo build --release. The capture runs without the sandbox (the tee that keeps
# the lines writes outside the bot's folder).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bots="$(cd "${1:-$here/crates/cli/tests/coup-cli/bots}" && pwd)"
games="${2:-20000}"
koth="${KOTH:-$here/target/release/koth}"
[ -x "$koth" ] || { echo "build koth first: cargo build --release" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/field" && cp -r "$bots" "$work/field/bots"
names=$(ls "$bots")
first=$(echo "$names" | head -n 1)
{
  printf '[tournament]\ngames = %s\ntable_size = %s\nrules = "coupcli"\nseed = 1\n' "$games" "$(echo "$names" | wc -l)"
  for b in $names; do
    if [ "$b" = "$first" ]; then
      cmd="[\"sh\", \"-c\", \"tee $work/capture.txt | exec node $here/sdk/coup-cli/adapter.js bots/$b\"]"
    else
      cmd="[\"node\", \"$here/sdk/coup-cli/adapter.js\", \"bots/$b\"]"
    fi
    printf '\n[[bot]]\nname = "%s"\ncommand = %s\ndir = "field"\nsandbox = "off"\n' "$b" "$cmd"
  done
} > "$work/t.toml"

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version)"
# One thread: one process of the first bot, so the capture is one process's input.
"$koth" coup run "$work/t.toml" -q --threads 1 > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
echo "captured what $first's process read: $(wc -l < "$work/capture.txt") lines, $(wc -c < "$work/capture.txt") bytes, $games games"
for run in 1 2 3; do
  for mode in lines parsed; do
    (cd "$work/field" && node "$here/bench/adapter-replay.js" "$work/capture.txt" "bots/$first" "$mode" 2>&1 >/dev/null | tail -n 1)
  done
done
