# A JSON-lines bot that keeps its state in a file beside it, as contestants do:
# state.txt holds this process's id and the games it has played. If another process
# rewrites the file (two slots sharing one folder), it notices and says so on stderr,
# then answers garbage, which forfeits the game.
import json, os, sys

STATE = 'state.txt'
me = str(os.getpid())

def load():
    try:
        pid, games = open(STATE).read().split()
        return pid, int(games)
    except (OSError, ValueError):
        return me, 0

for line in sys.stdin:
    msg = json.loads(line)
    if msg['type'] == 'hello':
        open(STATE, 'w').write(f'{me} 0')
        print(json.dumps({'type': 'ready', 'name': 'keeper'}), flush=True)
    elif msg['type'] == 'start':
        pid, games = load()
        open(STATE, 'w').write(f'{me} {games + 1}')
    elif msg['type'] == 'decide':
        pid, _ = load()
        if pid != me:
            sys.stderr.write(f'state.txt was written by process {pid}, not me ({me})\n')
            sys.stderr.flush()
            print('shared folder!', flush=True)
        else:
            print(json.dumps({'choice': msg['legal'][0], 'id': msg['id']}), flush=True)
