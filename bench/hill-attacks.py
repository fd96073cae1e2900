#!/usr/bin/env python3
"""Replays the attacks on a public hill (docs/hill.md, "Uploads are hostile
input") against a koth binary and prints what each got: run it with this
build's koth and with an older one to compare.

    bench/hill-attacks.py [KOTH]     (default: target/release/koth)

Each attack is one line: its name, the HTTP status or count it got, and what
it saw. Needs bubblewrap (the hill takes no uploads without isolation)."""

import http.client
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KOTH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "target/release/koth")

SPY = r'''
import json, os, sys
here = os.getcwd()
hill = os.path.dirname(os.path.dirname(here))
paths = sys.argv[1:] + [os.path.join(hill, "hill.sqlite"),
    os.path.join(hill, "..", os.path.basename(hill), "hill.sqlite"),
    os.path.join(hill, "versions"), os.path.join(hill, "logs")]
seen = []
for p in paths:
    try:
        if os.path.isdir(p):
            # Other than the way to its own folder.
            others = [e for e in os.listdir(p)
                      if not (here + "/").startswith(os.path.join(os.path.realpath(p), e) + "/")]
            if others:
                seen.append("%s: %s" % (os.path.basename(p) or p, others[:3]))
        else:
            seen.append("%s: %r" % (os.path.basename(p), open(p, "rb").read(16)))
    except OSError:
        pass
if seen:
    # Crashes with what it read: the check's answer then carries it back.
    print("SAW " + " | ".join(seen), file=sys.stderr, flush=True)
    sys.exit(7)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif m["type"] == "decide":
        print(json.dumps({"index": 0}), flush=True)
'''


def koth(*args, env=None):
    return subprocess.run([KOTH, *args], capture_output=True, text=True, env=env)


def tar_of(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data, mode in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def form(fields, archive):
    b = "kothreplayboundary"
    out = b""
    for k, v in fields:
        out += f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
    out += f'--{b}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar"\r\n\r\n'.encode()
    out += archive + f"\r\n--{b}--\r\n".encode()
    return b, out


def upload(addr, token, name, command, archive):
    b, body = form([("token", token), ("name", name), ("command", command)], archive)
    host, port = addr.split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=900)
    c.request("POST", "/api/submit", body, {"Content-Type": f"multipart/form-data; boundary={b}"})
    r = c.getresponse()
    return r.status, r.read().decode(errors="replace")


def serve(hill, prefix=""):
    p = subprocess.Popen(
        ["sh", "-c", f"{prefix} exec '{KOTH}' hill serve '{hill}' --listen 127.0.0.1:0 --threads 1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = ""
    for _ in range(8):
        line = p.stderr.readline()
        said += line
        for w in line.split():
            if w.startswith("http://"):
                return p, w[len("http://"):].rstrip("/")
    raise SystemExit("serve printed no address:\n" + said)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def board(addr):
    host, port = addr.split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request("GET", "/api/board")
    return json.loads(c.getresponse().read())


def main():
    work = tempfile.mkdtemp(prefix="koth-attacks-")
    hill = os.path.join(work, "hill")
    koth("hill", "init", hill, "--game", "coup", "--block", "40", "--candidate-games", "40")
    koth("hill", "add", hill, "honest", "honest")
    token = koth("hill", "token", "add", hill, "mallory").stdout.strip()
    server, addr = serve(hill)
    spy = tar_of([("spy.py", SPY.encode(), 0o644)])
    for label, command in [
        ("command names the hill", f"python3 spy.py {hill}/hill.sqlite"),
        ("command names it relatively", "python3 spy.py ../../hill.sqlite"),
        ("command names it with ..", f"python3 spy.py {hill}/../hill/hill.sqlite"),
        ("command names its versions", f"python3 spy.py {hill}/versions"),
        ("spy works the paths out itself", "python3 spy.py"),
    ]:
        name = "spy%d" % abs(hash(label) % 1000)
        code, body = upload(addr, token, name, command, spy)
        saw = [l for l in body.splitlines() if "SAW" in l]
        print(f"{label:34} HTTP {code}  {'read: ' + saw[0][:120] if saw else 'read nothing'}")
    fake = tar_of([("python3", b"#!/bin/sh\necho FAKE >&2\nexit 9\n", 0o755),
                   ("example_bot.py", open(os.path.join(HERE, "sdk/python/example_bot.py"), "rb").read(), 0o644),
                   ("koth_bot.py", open(os.path.join(HERE, "sdk/python/koth_bot.py"), "rb").read(), 0o644)])
    code, body = upload(addr, token, "fakepy", "python3 example_bot.py", fake)
    logs = os.path.join(hill, "logs")
    time.sleep(3)
    faked = any("FAKE" in open(os.path.join(r, f), errors="replace").read()
                for r, _, fs in os.walk(logs) for f in fs)
    print(f"{'archive with its own python3':34} HTTP {code}  {'the fake ran in games' if faked else 'the fake never ran'}")
    code, body = upload(addr, token, "Honest", "python3 spy.py", spy)
    print(f"{'look-alike name Honest':34} HTTP {code}")
    # 40 uploads of 16 MiB with a wrong token, held open.
    before = rss_kib(server.pid)
    held = []
    host, port = addr.split(":")
    b, head = form([("token", "0" * 48), ("name", "x"), ("command", "python3 x.py")], b"")
    head = head[: head.rindex(b"\r\n--")]
    for _ in range(40):
        s = socket.create_connection((host, int(port)))
        s.sendall(f"POST /api/submit HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary={b}\r\nContent-Length: {16 << 20}\r\n\r\n".encode() + head + b"x" * (1 << 20))
        held.append(s)
    time.sleep(2)
    after = rss_kib(server.pid)
    for s in held:
        s.close()
    print(f"{'40 held uploads, wrong token':34} serve {before // 1024} MB before, {after // 1024} MB with them held")
    server.terminate()
    server.wait()
    # A connection flood at ulimit -n 256, a program in the field.
    koth("hill", "add", hill, "pyex", "python3 " + os.path.join(HERE, "sdk/python/example_bot.py"))
    server, addr = serve(hill, "ulimit -Sn 256 && ulimit -Hn 256 &&")
    flood = []
    for _ in range(600):
        try:
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.connect((host, int(addr.split(":")[1])))
            s.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n")
            flood.append(s)
        except OSError:
            break
    time.sleep(20)
    try:
        b = board(addr)
        forfeits = sum(r["forfeits"] for r in b["rows"])
        print(f"{'600 held connections, ulimit 256':34} page answers; {b['games']} games stored, {forfeits} forfeits")
    except Exception as e:
        print(f"{'600 held connections, ulimit 256':34} page does not answer: {e}")
    for s in flood:
        s.close()
    server.terminate()
    server.wait()
    # A seed-000 hill of built-ins: files on disk.
    p = os.path.join(work, "ppcg")
    koth("hill", "init", p, "--game", "ppcg", "--block", "200")
    for bot in ["honest", "bluffer", "counter"]:
        koth("hill", "add", p, bot, bot)
    t = time.time()
    koth("hill", "play", p, "--games", "20000", "-q")
    files = sum(len(fs) for _, _, fs in os.walk(p))
    print(f"{'seed-000 hill, 20,000 games':34} {files} files in the hill ({time.time() - t:.1f} s)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
