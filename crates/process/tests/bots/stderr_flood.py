# Writes `argv[1]` MiB to stderr, then a marker, then prints "done" and exits 0.
# With "--lines": behaves as an echo bot that floods 1 MiB of stderr before every answer.
import sys

chunk = "e" * 1023 + "\n"
if len(sys.argv) > 1 and sys.argv[1] == "--lines":
    for line in sys.stdin:
        for _ in range(1024):
            sys.stderr.write(chunk)
        sys.stderr.write("MARKER " + line)
        sys.stderr.flush()
        sys.stdout.write(line)
        sys.stdout.flush()
else:
    for _ in range(int(sys.argv[1]) * 1024):
        sys.stderr.write(chunk)
    sys.stderr.write("END-OF-FLOOD\n")
    sys.stderr.flush()
    print("done")
