# Writes each argument followed by a NUL byte to stdout, byte-exact.
import os
import sys

out = sys.stdout.buffer
for a in sys.argv[1:]:
    out.write(os.fsencode(a) + b"\0")
out.flush()
