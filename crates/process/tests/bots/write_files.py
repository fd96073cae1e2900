# Tries to write each path in argv[1:]; prints "<path> ok" or "<path> denied <errno>".
import sys

for p in sys.argv[1:]:
    try:
        with open(p, "w") as f:
            f.write("hello\n")
        print(p, "ok")
    except OSError as e:
        print(p, "denied", e.errno)
sys.stdout.flush()
