# Keeps a count of its invocations in memory.txt in its own folder and plays Income,
# passes, and reveals; checks that its memory grows by one each call.
import os, sys
hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
import fcntl
# Games run in parallel: take a lock on the memory file while updating it.
with open('memory.txt', 'a+') as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = int(f.read() or 0)
    f.seek(0)
    f.truncate()
    f.write(str(n + 1))
for m in ('I\n', 'p', '\n'):
    if m in legal:
        move = m
        break
else:
    move = legal[0]
with open(hist, 'a') as f:
    f.write(move)
if move == '\n' and len(cards) in (3, 4):
    text = open(hist).read()[:-1]
    last = text.split('\n')[-1]
    if last.startswith('E') and len(last) % 2 == 0:
        sys.stdout.write(cards[2:])
