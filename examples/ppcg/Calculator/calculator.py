# A time-to-win calculator for the two-player challenge, written as its
# entries were: for each way of earning coins it can use truthfully, it counts
# the turns it needs to take every card the opponent has left, and plays the
# fastest. It claims only cards it holds and blocks only with them; it calls a
# claim only when the claim cannot be true (every copy accounted for) or when
# letting it stand loses the game anyway.
import math
import sys

hist, opp, mine, cards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
legal = sys.argv[5:]
history = open(hist).read()

GIVE_UP = {'~': '_', '^': "'", '*': '<', '!': '=', '$': '0'}
CARD_OF = {v: k for k, v in GIVE_UP.items()}
CLAIM = {'T': '$', 'A': '^', 'S': '*', 'E': '~', 'd': '$', 'a': '~', 'c': '*', 's': '!'}
WORTH = '$^*!~'  # most valuable first: Duke taxes, Assassin kills cheaply

hand = cards[-2:] if len(cards) > 2 else cards


def known(card):
    """Copies of card I can account for: mine and every one given up."""
    return hand.count(card) + sum(1 for ch in history if CARD_OF.get(ch) == card)


def opponent_cards():
    """Cards the opponent has left: two, less its give-ups (all give-ups less mine)."""
    given = sum(1 for ch in history if ch in CARD_OF)
    return max(1, 2 - (given - (2 - len(hand))))


def turns(rate, cost):
    kills = opponent_cards()
    return math.ceil(max(0, kills * cost - mine) / rate) + kills


def my_turn():
    # A kill when it can pay for one: the Assassin's unless a Contessa stopped it before.
    assassin = '^' in hand and 'As' not in history
    if 'A' in legal and assassin and mine >= 3:
        return 'A'
    if 'C' in legal and mine >= 7:
        return 'C'
    cost = 3 if assassin else 7
    plans = [(turns(1, cost), 3, 'I\n')]
    if 'F' in legal and 'Fd' not in history:
        plans.append((turns(2, cost), 2, 'F'))
    if 'T' in legal and '$' in hand:
        plans.append((turns(3, cost), 0, 'T'))
    if 'S' in legal and '*' in hand and opp >= 1 and 'Sc' not in history and 'Sa' not in history:
        # A Steal earns what it takes and costs the opponent as much.
        plans.append((turns(2 * min(2, opp), cost), 1, 'S'))
    return min(plans)[2]


def give_up():
    worst = sorted(hand, key=WORTH.index)[-1]
    return GIVE_UP[worst]


def pick():
    last = history[-1:] if history else '\n'
    if '\n' == last or last == '' or legal[0][0].isupper() or 'I\n' in legal:
        return my_turn()
    for reveal in '~^*!$':
        if reveal in legal:
            return reveal  # challenged, and truthful
    claimed = CLAIM.get(last)
    if claimed is not None and 'q' in legal and known(claimed) >= 3:
        return 'q'  # it cannot be true
    if last == 'A':
        if 's' in legal and '!' in hand:
            return 's'
        if len(hand) == 1:
            # Its last card: letting the Assassinate stand loses. Call it, or,
            # if it cannot, lie once (a forced lie).
            if 'q' in legal:
                return 'q'
            if 's' in legal:
                return 's'
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
    # After an Exchange (it never starts one): keep its own hand.
    sys.stdout.write(cards[2:])
