# Keeps a state file beside itself, as the seed allows, and lets it decide: the
# move is the legal move numbered by how many times it has been called. Run in a
# shared folder by parallel games, its calls would interleave and its play would
# depend on the thread count.
import sys
hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
try:
    n = int(open('state.txt').read() or 0)
except FileNotFoundError:
    n = 0
open('state.txt', 'w').write(str(n + 1))
move = legal[n % len(legal)]
with open(hist, 'a') as f:
    f.write(move)
if move == '\n' and len(cards) in (3, 4):
    text = open(hist).read()[:-1]
    last = text.split('\n')[-1]
    if last.startswith('E') and len(last) % 2 == 0:
        sys.stdout.write(cards[2:])
