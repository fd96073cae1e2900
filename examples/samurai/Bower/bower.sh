#!/bin/sh
# Seed 002's command line: [MY_HISTORY ENEMY_HISTORY] MY_HEALTH ENEMY_HEALTH MY_HONOUR ENEMY_HONOUR
# Bows for honour; once it has 2 or more, a quick draw, then bows again.
if [ $# -eq 4 ]; then honour=$3; else honour=$5; fi
if [ "$honour" -ge 2 ]; then echo I; else echo B; fi
