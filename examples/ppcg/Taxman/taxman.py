# A taxman for the two-player challenge, written as its entries were: it claims
# a Duke every turn, held or not (three coins a turn is the fastest honest-looking
# income), coups as soon as it can, and blocks Foreign Aid as a Duke. It calls a
# claim only when every copy of the card is accounted for; when its last card is
# being assassinated it claims a Contessa, having nothing left to lose.
import sys

hist, opp, mine, cards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
legal = sys.argv[5:]
history = open(hist).read()

GIVE_UP = {'~': '_', '^': "'", '*': '<', '!': '=', '$': '0'}
CARD_OF = {v: k for k, v in GIVE_UP.items()}
CLAIM = {'T': '$', 'A': '^', 'S': '*', 'E': '~', 'd': '$', 'a': '~', 'c': '*', 's': '!'}
# What it keeps longest: the Duke it claims, then what blocks the others' attacks.
WORTH = '$!*~^'

hand = cards[-2:] if len(cards) > 2 else cards


def known(card):
    return hand.count(card) + sum(1 for ch in history if CARD_OF.get(ch) == card)


def give_up():
    return GIVE_UP[sorted(hand, key=WORTH.index)[-1]]


def pick():
    last = history[-1:] if history else '\n'
    if last == '\n' or legal[0][0].isupper() or 'I\n' in legal:
        if 'C' in legal:
            return 'C'
        if 'T' in legal:
            return 'T'
        return 'I\n'
    for reveal in '~^*!$':
        if reveal in legal:
            return reveal
    claimed = CLAIM.get(last)
    if claimed is not None and 'q' in legal and known(claimed) >= 3:
        return 'q'
    if last == 'A' and 's' in legal and ('!' in hand or len(hand) == 1):
        return 's'
    if last == 'S':
        for block, card in (('c', '*'), ('a', '~')):
            if block in legal and card in hand:
                return block
    if last == 'F' and 'd' in legal:
        return 'd'
    for m in ('p', '\n'):
        if m in legal:
            return m
    gone = [m for m in legal if m in CARD_OF]
    if gone:
        g = give_up()
        return g if g in gone else gone[0]
    return legal[0]


move = pick()
with open(hist, 'a') as f:
    f.write(move)
if move == '\n' and len(cards) > 2:
    # It never exchanges; if handed an Exchange's cards, it keeps its own.
    sys.stdout.write(cards[2:])
