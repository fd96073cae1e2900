# Compares a koth run of coup crate bots with the crate's own engine on the same
# lineup (docs/coup-crate.md, "Agreement"):
#   python3 bench/coup-crate-agree.py KOTH_RUN_DIR CRATE_OUTPUT GAMES
# KOTH_RUN_DIR is a `koth coup run --out` folder; CRATE_OUTPUT what
# `cargo run --release -p koth-coup-crate --example crate_loop -- GAMES LINEUP`
# printed. koth's games are re-scored with the crate's formula (a game's winners
# share +1, its losers -1); z is the difference over sqrt(2) times koth's standard
# error (the crate prints no per-game scores: both samples are taken to vary alike).
import json, math, re, sys
run, crate_txt, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = json.load(open(run + '/run.json'))['entrants']
sc = {n: [] for n in names}
for l in open(run + '/games.jsonl'):
    r = json.loads(l)
    w = [s for s in range(len(r['seats'])) if r['outcome']['winners'] >> s & 1]
    n = len(r['seats'])
    for s, e in enumerate(r['seats']):
        sc[names[e]].append(1 / len(w) if s in w else -1 / (n - len(w)))
crate = {}
for line in open(crate_txt, errors='replace'):
    line = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', line)
    m = re.match(r'\s*-?[\d.]+%\s+(-?[\d.]+)\s+(.+?)\s*$', line)
    if m:
        crate[m.group(2)] = float(m.group(1)) / rounds  # the last board wins
print(f"{'bot':10} {'koth mean':>10} {'±95%':>7} {'crate mean':>10} {'diff':>8} {'z':>6}")
for n, v in sc.items():
    m = sum(v) / len(v)
    se = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    c = crate[n]
    print(f"{n:10} {m:+10.4f} {1.96*se:7.4f} {c:+10.4f} {c-m:+8.4f} {(c-m)/(se*math.sqrt(2)):+6.2f}")
