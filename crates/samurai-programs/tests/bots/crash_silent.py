# Crashes before answering: W, with the exit status and stderr recorded.
import sys
sys.stderr.write("about to fail\n")
raise SystemExit(3)
