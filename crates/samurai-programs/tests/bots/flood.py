# Answers, then floods: ten megabytes of output; the first character counts.
import sys
sys.stdout.write("B" * (10 * 1024 * 1024))
