# Answers, then floods: ten megabytes of output.
import sys
sys.stdout.write("B" * (10 * 1024 * 1024))
