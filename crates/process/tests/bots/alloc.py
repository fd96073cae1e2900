# Tries to allocate argv[1] MiB; prints "allocated" or "memory-error".
import sys

try:
    b = bytearray(int(sys.argv[1]) * 1024 * 1024)
    b[-1] = 1
    print("allocated")
except MemoryError:
    print("memory-error")
    sys.exit(3)
