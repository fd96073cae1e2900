# Compares a koth run of seed-000 programs with the original arbiter's games on
# the same programs, pairing by pairing (docs/ppcg.md, "Agreement with the
# original arbiter"):
#   python3 bench/ppcg-agree.py KOTH_RUN_DIR ORIGINAL_RESULTS
# KOTH_RUN_DIR is a `koth ppcg run --out` folder; ORIGINAL_RESULTS what
# bench/ppcg-original.py printed. For each pair of programs (both seatings
# together): the first-named's wins, the other's, and draws under each, and the
# p-value of a chi-square test that both come from the same distribution (df = the
# outcomes seen, less one; exact for 1 and 2 degrees of freedom).
import json, math, sys
from collections import Counter, defaultdict

run, original = sys.argv[1], sys.argv[2]
names = json.load(open(run + '/run.json'))['entrants']
order = {n: i for i, n in enumerate(names)}
koth, orig = defaultdict(Counter), defaultdict(Counter)


def tally(table, first, second, winner):
    pair = tuple(sorted((first, second), key=order.get))
    table[pair][0 if winner == pair[0] else 1 if winner == pair[1] else 2] += 1


for line in open(run + '/games.jsonl'):
    g = json.loads(line)
    a, b = (names[e] for e in g['seats'])
    w = g['outcome']['winners']
    tally(koth, a, b, a if w == 1 else b if w == 2 else None)
for line in open(original):
    g = json.loads(line)
    tally(orig, g['first'], g['second'], g['winner'])


def p_value(x, y):
    cols = [k for k in range(3) if x[k] + y[k] > 0]
    nx, ny = sum(x.values()), sum(y.values())
    if len(cols) < 2 or not nx or not ny:
        return 1.0
    chi = 0.0
    for k in cols:
        col = x[k] + y[k]
        for obs, n in ((x[k], nx), (y[k], ny)):
            exp = col * n / (nx + ny)
            chi += (obs - exp) ** 2 / exp
    return math.erfc(math.sqrt(chi / 2)) if len(cols) == 2 else math.exp(-chi / 2)


print(f"{'pairing':24} {'koth A-B-draw':>16} {'original A-B-draw':>18} {'p':>7}")
worst = 1.0
for pair in sorted(set(koth) | set(orig), key=lambda p: (order[p[0]], order[p[1]])):
    k, o = koth[pair], orig[pair]
    p = p_value(k, o)
    worst = min(worst, p)
    fmt = lambda c: f"{c[0]}-{c[1]}-{c[2]}"
    print(f"{pair[0] + ' v ' + pair[1]:24} {fmt(k):>16} {fmt(o):>18} {p:7.3f}")
print(f"smallest p: {worst:.3f} over {len(koth)} pairings "
      f"({sum(map(lambda c: sum(c.values()), koth.values()))} koth games, "
      f"{sum(map(lambda c: sum(c.values()), orig.values()))} original games)")
