# Prints one line of argv[1] bytes, then "ok", then waits for input lines and echoes them.
import sys

sys.stdout.write("x" * int(sys.argv[1]) + "\n")
sys.stdout.write("ok\n")
sys.stdout.flush()
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
