#!/usr/bin/env python3
# A seed-002-style entry: bows to the Sword of the Gods, then strikes with the
# counter of the enemy's last strike; guards when an armed enemy struck last turn
# (never twice in a row); never spends honour it does not have.
import sys

args = sys.argv[1:]
if len(args) == 4:
    mine, theirs = "", ""
    my_health, their_health, my_honour, their_honour = map(int, args)
else:
    mine, theirs = args[0], args[1]
    my_health, their_health, my_honour, their_honour = map(int, args[2:])

counter = {"I": "P", "P": "O", "O": "I"}
last = theirs[-1] if theirs else ""
if their_honour >= 7 and last in counter and not mine.endswith("G"):
    print("G")
elif my_honour >= 7 or (my_honour >= 1 and their_health <= 1):
    print(counter.get(last, "I"))
else:
    print("B")
