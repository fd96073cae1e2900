#!/usr/bin/env bash
# How docs/hill.md's figures for workers were measured: one hill on PostgreSQL
# (the SDK's Python bot and three built-ins, blocks of 1000 games, planning
# window 2, 8 leases a block), played by 1, 2 and 3 workers on this machine, beside the same hill played by one process on SQLite.
#   deploy/measure-workers.sh postgres://USER:PASSWORD@HOST/postgres [GAMES]
# USER must be allowed to make databases. Prints games a second for each, and
# the database's bytes a game.
set -euo pipefail
admin=${1:?usage: deploy/measure-workers.sh postgres://USER:PASSWORD@HOST/postgres [GAMES]}
games=${2:-4000}
koth=${KOTH:-target/release/koth}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
base=${admin%/*}
fresh() { # a hill called $1, on PostgreSQL unless $2 is "sqlite"
  local dir=$work/$1
  local db=()
  if [ "${2:-}" != sqlite ]; then
    psql "$admin" -qc "DROP DATABASE IF EXISTS koth_measure_$1" -c "CREATE DATABASE koth_measure_$1"
    db=(--db "$base/koth_measure_$1" --window 2 --leases 8)
  fi
  "$koth" hill init "$dir" --game coup --seed 7 --block 1000 --candidate-games 240 "${db[@]}" >/dev/null 2>&1
  for b in honest counter economist; do "$koth" hill add "$dir" "$b" "$b" >/dev/null; done
  "$koth" hill add "$dir" mine "python3 $repo/sdk/python/example_bot.py" --check-games 20 >/dev/null 2>&1
  # The candidate's games first, so that every figure is of the same blocks.
  "$koth" hill play "$dir" --games 240 -q >/dev/null
}
rate() { # games a second of what ran between $1 (a start in ns) and now, $2 games
  awk -v s="$1" -v e="$(date +%s%N)" -v g="$2" 'BEGIN { printf "%.1f games/s (%d games in %.1f s)", g / ((e - s) / 1e9), g, (e - s) / 1e9 }'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
fresh lite sqlite
t=$(date +%s%N); "$koth" hill play "$work/lite" --games "$games" --threads 2 -q >/dev/null
echo "one process, SQLite, 2 threads: $(rate "$t" "$games")"
fresh one
t=$(date +%s%N); "$koth" hill play "$work/one" --games "$games" --threads 2 -q >/dev/null
echo "one process, PostgreSQL, 2 threads: $(rate "$t" "$games")"
# Workers x threads each: one worker of one thread leaves the other core
# idle (and its bots' answers wait for it to wake); of two, it uses both.
for shape in 1x1 1x2 2x1 3x1; do
  n=${shape%x*} threads=${shape#*x} h=w$shape
  fresh "$h"
  pids=()
  for i in $(seq "$n"); do
    token=$("$koth" hill worker add "$work/$h" "w$i" 2>/dev/null)
    KOTH_WORKER_TOKEN=$token "$koth" hill work --db "$base/koth_measure_$h" --threads "$threads" 2>/dev/null &
    pids+=($!)
  done
  t=$(date +%s%N); "$koth" hill play "$work/$h" --games "$games" --plan-only -q >/dev/null
  echo "$n worker(s) of $threads thread(s): $(rate "$t" "$games")"
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
done
stored=$(psql "$base/koth_measure_w3x1" -qAtc "SELECT SUM(count) FROM batches")
tables=$(psql "$base/koth_measure_w3x1" -qAtc "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'")
for what in batches game_logs; do
  bytes=$(psql "$base/koth_measure_w3x1" -qAtc "SELECT pg_total_relation_size('$what')")
  echo "PostgreSQL, $what: $((bytes / stored)) bytes a game"
done
echo "PostgreSQL, the hill's tables: $tables bytes, $((tables / stored)) bytes a game ($stored games)"
lite=$(stat -c %s "$work/lite/hill.sqlite")
echo "SQLite, hill.sqlite: $lite bytes, $((lite / $("$koth" hill games "$work/lite" | wc -l))) bytes a game"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for h in lite one w1x1 w1x2 w2x1 w3x1; do psql "$admin" -qc "DROP DATABASE IF EXISTS koth_measure_$h" 2>/dev/null; done
