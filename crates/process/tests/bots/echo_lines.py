# Persistent echo bot: answers every line with the same line.
import sys

for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
