# Prints a valid answer, then crashes: a crash is recorded as W.
import sys
print("B", flush=True)
sys.stderr.write("about to fail\n")
raise SystemExit(3)
