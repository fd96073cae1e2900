# A statistician for the two-player challenge, written as its entries were: it
# counts every card it can account for (its hand and every card given up) and
# works out the chance that the opponent's hand, drawn from the cards it cannot
# see, holds the card a claim needs. It calls a claim that chance makes a lie
# more likely than not, or a little less when letting it stand costs a card. It
# plays only cards it holds, and Foreign Aid when a Duke block is unlikely.
import sys
from math import comb

hist, opp, mine, cards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
legal = sys.argv[5:]
history = open(hist).read()

GIVE_UP = {'~': '_', '^': "'", '*': '<', '!': '=', '$': '0'}
CARD_OF = {v: k for k, v in GIVE_UP.items()}
CLAIM = {'T': '$', 'A': '^', 'S': '*', 'E': '~', 'd': '$', 'a': '~', 'c': '*', 's': '!'}
WORTH = '$^*!~'

hand = cards[-2:] if len(cards) > 2 else cards


def given_up():
    return [CARD_OF[ch] for ch in history if ch in CARD_OF]


def unseen(card):
    """Copies of card it cannot see: three less its own and those given up."""
    return 3 - hand.count(card) - given_up().count(card)


def opponent_cards():
    return max(1, 2 - (len(given_up()) - (2 - len(hand))))


def chance_holds(card):
    """Hypergeometric: the opponent's hand drawn from every card it cannot see."""
    pool = 15 - len(hand) - len(given_up())
    n, k = opponent_cards(), unseen(card)
    if k <= 0:
        return 0.0
    return 1 - comb(pool - k, n) / comb(pool, n)


def give_up():
    return GIVE_UP[sorted(hand, key=WORTH.index)[-1]]


def my_turn():
    if 'C' in legal:
        return 'C'
    if 'A' in legal and '^' in hand and mine >= 3:
        return 'A'
    if 'T' in legal and '$' in hand:
        return 'T'
    if 'S' in legal and '*' in hand and opp >= 2:
        return 'S'
    if 'F' in legal and chance_holds('$') < 0.4:
        return 'F'
    return 'I\n'


def pick():
    last = history[-1:] if history else '\n'
    if last == '\n' or legal[0][0].isupper() or 'I\n' in legal:
        return my_turn()
    for reveal in '~^*!$':
        if reveal in legal:
            return reveal
    claimed = CLAIM.get(last)
    if claimed is not None and 'q' in legal:
        # Hurt by it: an Assassinate, a Steal, a block of its own action.
        costly = last in 'ASdacs'
        if chance_holds(claimed) < (0.5 if costly else 0.3) and len(hand) == 2:
            return 'q'
        if chance_holds(claimed) == 0.0:
            return 'q'
    if last == 'A':
        if 's' in legal and ('!' in hand or len(hand) == 1):
            return 's'
        g = give_up()
        return g if g in legal else legal[0]
    if last == 'S':
        for block, card in (('c', '*'), ('a', '~')):
            if block in legal and card in hand:
                return block
    if last == 'F' and 'd' in legal and '$' in hand:
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
