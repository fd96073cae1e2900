# Tries to connect to 127.0.0.1:argv[1]; prints "connected" or "refused: <error>".
import socket
import sys

try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    s.close()
    print("connected")
except OSError as e:
    print("failed:", e)
