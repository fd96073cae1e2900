# Plays a seed-000 program list under the challenge's original arbiter, for
# comparison with koth (docs/ppcg.md, "Agreement with the original arbiter"):
#   cd FOLDER_OF_PROGRAM_FOLDERS
#   python2 bench/ppcg-original.py ARBITER PLAYERS ROUNDS SEED > results.jsonl
# ARBITER is the arbiter's Python 2 source as the challenge posted it, its
# indentation restored (the posted copy lost it). Everything above its line
# `competitors = []` is run as is: its rules, its deck, its file handling. This
# driver replaces only the tournament loop after that line: the programs come from
# PLAYERS (koth's program-list format), each game starts from a fresh deck, coins
# and cards (the original forgot to reset them after a drawn game), and a line its
# get_legal_actions dies on (a KeyError on "Txq") is read as its own "file ended
# in invalid character" ruling, as koth reads it. One JSON line a game.
import itertools
import json
import random
import sys

arbiter, players, rounds, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
source = open(arbiter).read()
cut = source.find('\ncompetitors = []')
if cut < 0:
    sys.exit("%s: no line 'competitors = []': is it the seed-000 arbiter?" % arbiter)
random.seed(seed)
# Its history files are named from __file__: here, in the current folder.
ns = {'__file__': 'arbiter.py', '__name__': 'arbiter'}
sys.stdout = sys.stderr  # its narration, away from the results
exec(compile(source[:cut], arbiter, 'exec'), ns)
sys.stdout = sys.__stdout__
legal = ns['get_legal_actions']


def get_legal_actions(history, player, opponent):
    try:
        return legal(history, player, opponent)
    except (KeyError, IndexError):
        return None


ns['get_legal_actions'] = get_legal_actions
competitors = []
for line in open(players):
    line = line.strip()
    if line and not line.startswith('#'):
        name, command = line.split(None, 1)
        competitors.append(ns['Player'](name, command.split()))
for i in range(rounds):
    for j, (first, second) in enumerate(itertools.permutations(competitors, 2)):
        for p in (first, second):
            p.coins, p.cards = 1, ""
        ns['deck'] = ['_', "'", '<', '=', '0'] * 3
        random.shuffle(ns['deck'])
        saved, sys.stdout = sys.stdout, sys.stderr
        winner = ns['play_game'](first, second, i, j)
        sys.stdout = saved
        print(json.dumps({"round": i, "first": first.name, "second": second.name,
                          "winner": winner.name if winner else None}))
        sys.stdout.flush()
