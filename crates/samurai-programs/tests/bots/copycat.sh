#!/bin/sh
# Repeats the enemy's last action; bows on the first turn and when honour is 0.
if [ $# -eq 4 ]; then echo B; exit 0; fi
last=$(printf '%s' "$2" | tail -c 1)
if [ "$5" -le 0 ]; then echo B; else echo "$last"; fi
