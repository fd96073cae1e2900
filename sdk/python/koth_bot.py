"""koth bot SDK for Python: one file, no dependencies (protocol version 1).

Write a bot by subclassing Bot and overriding decide(), then call run():

    from koth_bot import Bot, run

    class MyBot(Bot):
        name = "my bot"
        def decide(self, decision, view, legal):
            return legal[0]          # always answer with an element of legal

    run(MyBot)   # a bot per game, up to 64 games at once (run(MyBot()): one at a time)

The engine sends one JSON object per line on stdin; the bot answers `hello` with
`{"type": "ready"}` and each `decide` with `{"choice": <element of legal>}`.
Print debugging output to stderr (the `log` helper does), never to stdout.

Coup choices look like: "pass", "challenge", {"act": "income"}, {"act": {"steal": 2}},
{"block": "duke"}, {"keep": ["captain", "duke"]}, {"lose": "contessa"}.
Samurai choices are the letters "W", "B", "G", "I", "P", "O" (see samurai_bot.py).

Debugging: self.stop("why") in any hook makes the next answer ask koth to stop the
run after this game and show it (as coup-cli's "STOP" log line does).
"""
import json
import os
import sys

CARDS = ["ambassador", "assassin", "captain", "contessa", "duke"]
CLAIMS = {"tax": "duke", "assassinate": "assassin", "steal": "captain", "exchange": "ambassador"}


def log(*args):
    """Prints to stderr (stdout is the protocol channel)."""
    print(*args, file=sys.stderr, flush=True)


def action_of(choice):
    """For {"act": X}: the action's name ("income", "steal"...), else None."""
    if isinstance(choice, dict) and "act" in choice:
        a = choice["act"]
        return a if isinstance(a, str) else next(iter(a))
    return None


def target_of(choice):
    """For a targeted action {"act": {"coup": 2}}: the target seat, else None."""
    if isinstance(choice, dict) and isinstance(choice.get("act"), dict):
        return next(iter(choice["act"].values()))
    return None


def claim_of(action):
    """The card an action claims ("tax" -> "duke"), or None. `action` is a name or {"steal": 2}."""
    if isinstance(action, dict):
        action = next(iter(action))
    return CLAIMS.get(action)


def actions(legal, name=None):
    """The {"act": ...} choices in legal, optionally only those of one action."""
    return [c for c in legal if action_of(c) is not None and (name is None or action_of(c) == name)]


def find(legal, kind, value=None):
    """The first choice of a kind ("pass", "challenge", "block", "keep", "lose", "act")
    with an optional value (e.g. find(legal, "block", "duke")), else None."""
    for c in legal:
        if c == kind and value is None:
            return c
        if isinstance(c, dict) and kind in c and (value is None or c[kind] == value):
            return c
    return None


def seen(view, card):
    """Copies of `card` I can account for: in my hand or face up anywhere (3 exist)."""
    return view["cards"].count(card) + sum(r.count(card) for r in view["revealed"])


class Bot:
    """Override decide(); the other hooks are optional."""

    name = "python bot"
    _stop = None

    def stop(self, why="STOP"):
        """Asks koth to stop the run after this game and show it (a debugging aid)."""
        self._stop = str(why)

    def start(self, msg):
        """A game begins: msg has seat, players, names (the seats' names), rules, seed, view."""

    def event(self, ev):
        """One public event (called for each event before decide/end)."""

    def decide(self, decision, view, legal):
        """Return one element of `legal` (or an int index into it)."""
        return legal[0]

    def end(self, msg):
        """The game is over: msg has winners, ending, turns, view."""


#: How many games at once a bot given as a class offers to play: 64 (koth's most),
#: or KOTH_GAMES_AT_ONCE from the environment (a bot's `env` in a tournament file).
try:
    GAMES = max(1, min(64, int(os.environ.get("KOTH_GAMES_AT_ONCE", "64"))))
except ValueError:
    GAMES = 64


def _batches(stdin):
    """Lists of the lines read at once: the requests of many games come in one write."""
    if stdin is not None:
        for line in stdin:
            yield [line]
        return
    pending = b""
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        yield lines


def run(bot, stdin=None, stdout=None):
    """Serves games until the engine closes stdin.

    Given a class (run(MyBot)) or a function returning a bot, it makes a bot for
    every game and offers to play up to 64 games at once: koth then sends the
    requests of many games in one write and this answers them in one, many times
    faster than a game at a time. Keep a game's state on self (module-level state
    would be shared by the games under way). Given an object (run(MyBot())), that
    one bot plays one game at a time.
    """
    make = bot if callable(bot) and not isinstance(bot, Bot) else None
    games = GAMES if make else 1
    name = (make() if make else bot).name
    bots = {}  # table -> the bot of its game
    for lines in _batches(stdin):
        out = []
        for line in lines:
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "hello":
                ready = {"type": "ready", "name": name}
                if games > 1:
                    ready["games"] = games
                out.append(json.dumps(ready, separators=(",", ":")) + "\n")
                continue
            b = bot
            if make is not None:
                t = msg.get("table", 0)
                b = bots.get(t)
                if kind == "start" or b is None:
                    b = bots[t] = make()
                if kind == "end":
                    bots.pop(t, None)
            for ev in msg.get("events", ()):
                b.event(ev)
            if kind == "start":
                b.start(msg)
            elif kind == "decide":
                choice = b.decide(msg["decision"], msg["view"], msg["legal"])
                reply = {"index": choice} if isinstance(choice, int) else {"choice": choice}
                reply["id"] = msg.get("id")
                if b._stop is not None:
                    reply["stop"], b._stop = b._stop, None
                out.append(json.dumps(reply, separators=(",", ":")) + "\n")
            elif kind == "end":
                b.end(msg)
        if not out:
            # What a start or end hook printed leaves now, so koth finds it there.
            if stdout is None:
                sys.stdout.flush()
            continue
        if stdin is not None or stdout is not None:
            stdout = stdout or sys.stdout
            stdout.write("".join(out))
            stdout.flush()
            continue
        # What the bot printed goes first, in order (and is caught as garbage:
        # debugging output belongs on stderr).
        sys.stdout.flush()
        data = "".join(out).encode()
        while data:
            data = data[os.write(1, data):]
