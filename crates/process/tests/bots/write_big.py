# Writes argv[2] bytes to file argv[1]; Python ignores SIGXFSZ so the limit shows as EFBIG.
import sys

try:
    with open(sys.argv[1], "wb") as f:
        f.write(b"z" * int(sys.argv[2]))
    print("wrote")
except OSError as e:
    print("efbig", e.errno)
    sys.exit(5)
