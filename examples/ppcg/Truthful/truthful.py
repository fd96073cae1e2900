# Never lies: claims and blocks only with cards it holds; taxes with a Duke, coups when it can.
import sys
hist, opp, mine, cards = sys.argv[1:5]
legal = sys.argv[5:]
reveal = {'~': 'amb', '^': 'ass', '*': 'cap', '!': 'con', '$': 'duk'}
has = lambda c: c in cards
def pick():
    if 'C' in legal: return 'C'
    if 'T' in legal and has('$'): return 'T'
    if 'A' in legal and has('^'): return 'A'
    if 'S' in legal and has('*'): return 'S'
    if 'I\n' in legal: return 'I\n'
    if 'd' in legal and has('$'): return 'd'
    if 's' in legal and has('!'): return 's'
    if 'c' in legal and has('*'): return 'c'
    if 'a' in legal and has('~'): return 'a'
    for m in ('p', '\n'):
        if m in legal: return m
    return legal[-1]
move = pick()
with open(hist, 'a') as f:
    f.write(move)
# It never exchanges, but keeps its hand if an Exchange ever succeeds for it.
if move == '\n' and len(cards) in (3, 4):
    last = open(hist).read()[:-1].split('\n')[-1]
    if last.startswith('E') and len(last) % 2 == 0:
        sys.stdout.write(cards[2:])
