# Uniform over the legal moves; after an Exchange keeps random cards.
import random, sys
hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
text = open(hist).read()
last = text[:-1].split('\n')[-1] + text[-1:] if text else ''
last = text.split('\n')[-1]
move = random.choice(legal)
with open(hist, 'a') as f:
    f.write(move)
# The arbiter hands over the drawn cards when the line is an Exchange gone through.
if move == '\n' and last.startswith('E') and len(last) % 2 == 0 and last[-1] in "p_'<=0":
    sys.stdout.write(''.join(random.sample(cards, len(cards) - 2)))
