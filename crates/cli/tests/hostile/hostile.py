# A contestant who wants to cheat, spy or sabotage. On its first move it tries every
# attack it knows, writes what happened to findings.txt in its own folder (the one
# place it may write), then plays normally so the run goes on.
#   python3 hostile.py json      JSON-lines Coup bot (koth run)
#   python3 hostile.py ppcg      seed-000 Coup program (koth ppcg): plays its first
#                                legal move
#   python3 hostile.py samurai   Ultimate Samurai Showdown program (koth samurai),
#                                which strikes at once (and loses: a short match)
# Its targets are named in targets.json, in its folder.
import json, os, signal, socket, subprocess, sys

findings = []


def attempt(name, fn):
    try:
        findings.append("%s: DONE %r" % (name, fn()))
    except Exception as e:
        findings.append("%s: blocked (%s)" % (name, type(e).__name__))


def read(path):
    with open(path) as f:
        return f.read(40)


def attack():
    with open("targets.json") as f:
        env = json.load(f)
    attempt("read tournament file", lambda: read(env["TARGET_TOURNAMENT"]))
    attempt("read run.json", lambda: read(env["TARGET_RUN"]))
    attempt("list the victim's folder", lambda: os.listdir(env["TARGET_VICTIM_DIR"]))
    attempt("read the victim's program", lambda: read(env["TARGET_VICTIM_FILE"]))
    attempt("chmod the victim's program", lambda: os.chmod(env["TARGET_VICTIM_FILE"], 0o777))
    attempt("forge a record", lambda: open(os.path.join(env["TARGET_OUT"], "games.jsonl"), "a").write("FORGED\n"))
    attempt("read another process's environment", lambda: read("/proc/%s/environ" % env["TARGET_ARENA_PID"]))
    def unix():
        s = socket.socket(socket.AF_UNIX)
        s.connect(env["TARGET_SOCKET"])
        s.send(b"hello from a bot")
    attempt("connect to a unix socket", unix)
    def tcp():
        s = socket.create_connection(("127.0.0.1", int(env["TARGET_PORT"])), timeout=1)
        s.send(b"hello")
    attempt("connect to loopback TCP", tcp)
    attempt("signal another process", lambda: os.kill(int(env["TARGET_ARENA_PID"]), 0))
    # Leaves a process behind that is no longer in its process group.
    attempt("start a setsid child", lambda: subprocess.Popen(
        ["sleep", env["TARGET_MARKER"]], start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid > 0)
    findings.append("secret in environment: %s" % ("SECRET_TOKEN" in os.environ))
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    findings.append("processes visible: %d" % len(pids))
    findings.append("uid: %d" % os.getuid())
    # Last: SIGKILL to every process it may signal (the whole machine for a root bot
    # outside a PID namespace; the test does not run this one without namespaces).
    attempt("kill -1", lambda: os.kill(-1, signal.SIGKILL))
    with open("findings.txt", "a") as f:
        f.write("\n".join(findings) + "\n---\n")


def json_bot():
    attacked = False
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            reply = {"type": "ready"}
        elif msg["type"] == "decide":
            if not attacked:
                attacked = True
                attack()
            reply = {"choice": msg["legal"][0]}
        else:
            continue
        print(json.dumps(reply), flush=True)


def samurai():
    if not os.path.exists("attacked"):
        open("attacked", "w").close()
        attack()
    print("I")


def ppcg():
    if not os.path.exists("attacked"):
        open("attacked", "w").close()
        attack()
    hist, cards = sys.argv[2], sys.argv[5]
    legal = sys.argv[6:]
    text = open(hist).read()
    last = text.split("\n")[-1]
    move = legal[0]
    with open(hist, "a") as f:
        f.write(move)
    # After an Exchange gone through, keep the first cards.
    if move == "\n" and last.startswith("E") and len(last) % 2 == 0 and last[-1] in "p_'<=0":
        sys.stdout.write(cards[: len(cards) - 2])


if __name__ == "__main__":
    {"json": json_bot, "ppcg": ppcg, "samurai": samurai}[sys.argv[1]]()
