# Prints a valid answer, then exits with status 3: the answer counts.
import sys
print("B", flush=True)
sys.stderr.write("about to fail\n")
raise SystemExit(3)
