"""Misbehaving bots for the tests: python3 zoo.py MODE."""
import json, os, random, subprocess, sys, time

mode = sys.argv[1]
if mode == "crash_start":
    print("boom at start", file=sys.stderr, flush=True)
    sys.exit(3)

decisions = 0
games = 0
seat = None
tried = None  # "broke": the Coup it last tried without the coins
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "start":
        seat, tried = msg["seat"], None
    if kind == "hello":
        if mode == "spawn":
            for _ in range(40):
                subprocess.Popen(["sleep", "299.123"])
        if mode == "escape":
            target = os.environ["ESCAPE_TARGET"]
            try:
                with open(target, "w") as f:
                    f.write("escaped\n")
                print("wrote", target, file=sys.stderr, flush=True)
            except OSError as e:
                print("write refused:", e, file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready", "name": mode}), flush=True)
    elif kind == "end":
        games += 1
        if mode == "exit_after_one":
            sys.exit(0)
    elif kind == "decide":
        decisions += 1
        if mode == "crash_mid" and decisions == 3:
            print("about to fail", file=sys.stderr, flush=True)
            1 / 0
        if mode == "sleep":
            time.sleep(1e6)
        if mode == "silent":
            continue
        if mode == "garbage":
            print("hello world, I think I'll play a Duke", flush=True)
            continue
        if mode == "illegal":
            print(json.dumps({"choice": {"act": {"coup": 9}}}), flush=True)
            continue
        if mode == "bad_index":
            print(json.dumps({"index": 999}), flush=True)
            continue
        if mode == "longline":
            chunk = "x" * (1 << 20)
            for _ in range(100):
                sys.stdout.write(chunk)
            sys.stdout.flush()
            continue
        if mode == "twice":
            # Answers each request twice, in one write: the second line is unsolicited.
            line = json.dumps({"choice": random.choice(msg["legal"])})
            sys.stdout.write(line + "\n" + line + "\n")
            sys.stdout.flush()
            continue
        if mode in ("with_id", "stale_id"):
            echo = msg["id"] - (1 if mode == "stale_id" and decisions > 1 else 0)
            print(json.dumps({"choice": random.choice(msg["legal"]), "id": echo}), flush=True)
            continue
        if mode == "broke":
            # Tries a Coup on the next seat whenever it lacks the coins; checks that
            # each penalty it gets shows that Coup (answering garbage if not).
            shown = [e.get("action") for e in msg["events"] if e["event"] == "penalty" and e["player"] == seat]
            if any(a != tried for a in shown):
                print("penalty shows", shown, "but I tried", tried, flush=True)
                continue
            view = msg["view"]
            if msg["decision"]["kind"] == "action" and view["coins"][seat] < 7:
                tried = {"coup": (seat + 1) % view["players"]}
                print(json.dumps({"choice": {"act": tried}}), flush=True)
                continue
            print(json.dumps({"choice": msg["legal"][0]}), flush=True)
            continue
        if mode == "stderr_flood":
            sys.stderr.write("noise " * 40000 + "\n")
            sys.stderr.flush()
        print(json.dumps({"choice": random.choice(msg["legal"])}), flush=True)
