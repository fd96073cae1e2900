# Floods with something that is not an action: W.
import sys
sys.stdout.write("h" * (10 * 1024 * 1024))
