#!/bin/sh
# A program of the original challenge: MY_HISTORY ENEMY_HISTORY MY_HEALTH ENEMY_HEALTH
# MY_HONOUR ENEMY_HONOUR (only the four numbers on the first turn). It crashes when
# its honour is 0, the case its author never tried (it strikes whenever it can, so
# it gets there on its second turn).
if [ $# -eq 4 ]; then honour=$3; else honour=$5; fi
if [ "$honour" -eq 0 ]; then
  echo "honour 0: division by zero" >&2
  exit 3
fi
echo P
