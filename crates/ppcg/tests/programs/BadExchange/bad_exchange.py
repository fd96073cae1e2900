# Exchanges whenever it can and then prints cards it was not given.
import sys
hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
move = 'E' if 'E' in legal else legal[0]
open(hist, 'a').write(move)
if move == '\n' and len(cards) in (3, 4):
    sys.stdout.write('#' * (len(cards) - 2))
