# A seed-000 program with the habit of a real entry: whenever a newline alone ends
# its turn, it writes one of its cards before it ("0\n"), as if giving it up. The
# original arbiter accepts that (the line still ends with "\n") and reads the turn
# as usual, so koth does too, with a warning; under --strict it forfeits.
import sys

hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
give_up = {'~': '_', '^': "'", '*': '<', '!': '=', '$': '0'}
if legal == ['\n']:
    move = give_up[cards[-1]] + '\n'
elif 'T' in legal and '$' in cards:
    move = 'T'
elif 'C' in legal:
    move = 'C'
elif 'I\n' in legal:
    move = 'I\n'
else:
    move = legal[0]
with open(hist, 'a') as f:
    f.write(move)
