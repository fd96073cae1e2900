"""Tries to pass one bit between two processes through a kernel object both
can reach: `channel.py send|receive CHANNEL FILE`.

The sender sets the bit (a lock on FILE, reads of it that a watch would see,
an IPC object, an abstract socket) and holds it for HOLD seconds. The receiver
looks for it again and again from 1 s to 5 s, and prints `seen`, or `unseen`
with what stopped it. FILE is a system file every sandbox binds: the same
inode in all of them.
"""
import ctypes
import ctypes.util
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
role, channel, shared = sys.argv[1], sys.argv[2], sys.argv[3]
HOLD = 7.0
KEY = 0x4B4F5400 + sum(map(ord, channel)) % 256
NAME = "/koth-bit-" + channel
F_OFD_GETLK, F_OFD_SETLK = 36, 37
IN_ACCESS, IN_OPEN, IN_NONBLOCK = 0x1, 0x20, 0o4000
IPC_CREAT, IPC_RMID = 0o1000, 0
FLOCK = "hh4xqqi4x"  # struct flock on 64-bit Linux


def err(what):
    return f"{what}: errno {ctypes.get_errno()}"


def lock_query(cmd):
    fd = os.open(shared, os.O_RDONLY)
    got = fcntl.fcntl(fd, cmd, struct.pack(FLOCK, fcntl.F_WRLCK, 0, 0, 0, 0))
    os.close(fd)
    return struct.unpack(FLOCK, got)[0] != fcntl.F_UNLCK


def send():
    """Sets the bit; returns what must stay alive while it holds."""
    if channel == "flock":
        fd = os.open(shared, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    if channel in ("fcntl", "ofd"):
        fd = os.open(shared, os.O_RDONLY)
        cmd = fcntl.F_SETLK if channel == "fcntl" else F_OFD_SETLK
        fcntl.fcntl(fd, cmd, struct.pack(FLOCK, fcntl.F_RDLCK, 0, 0, 0, 0))
        return fd
    if channel in ("inotify", "dnotify", "fanotify"):
        # Reads of the file, for a watch to see.
        end = time.time() + HOLD
        while time.time() < end:
            with open(shared, "rb") as f:
                f.read(1)
            time.sleep(0.02)
        return None
    if channel == "sysv-shm":
        i = libc.shmget(KEY, 4096, IPC_CREAT | 0o666)
        return ("shm", i) if i >= 0 else sys.exit(print("cannot", err("shmget")))
    if channel == "sysv-msg":
        i = libc.msgget(KEY, IPC_CREAT | 0o666)
        return ("msg", i) if i >= 0 else sys.exit(print("cannot", err("msgget")))
    if channel == "sysv-sem":
        i = libc.semget(KEY, 1, IPC_CREAT | 0o666)
        return ("sem", i) if i >= 0 else sys.exit(print("cannot", err("semget")))
    if channel == "posix-mq":
        libc.mq_open.restype = ctypes.c_int
        q = libc.mq_open(NAME.encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
        return ("mq", q) if q >= 0 else sys.exit(print("cannot", err("mq_open")))
    if channel == "posix-shm":
        fd = libc.shm_open(NAME.encode(), os.O_CREAT | os.O_RDWR, 0o666)
        return ("pshm", fd) if fd >= 0 else sys.exit(print("cannot", err("shm_open")))
    if channel == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + NAME)
        s.listen(8)
        return s
    raise SystemExit("unknown channel " + channel)


def cleanup(held):
    if isinstance(held, tuple):
        kind, i = held
        if kind == "shm":
            libc.shmctl(i, IPC_RMID, None)
        elif kind == "msg":
            libc.msgctl(i, IPC_RMID, None)
        elif kind == "sem":
            libc.semctl(i, 0, IPC_RMID)
        elif kind == "mq":
            libc.mq_unlink(NAME.encode())
        elif kind == "pshm":
            libc.shm_unlink(NAME.encode())


def probe():
    """One look for the bit: True, False, or a reason it cannot look."""
    if channel == "flock":
        fd = os.open(shared, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
    if channel == "fcntl":
        return lock_query(fcntl.F_GETLK)
    if channel == "ofd":
        return lock_query(F_OFD_GETLK)
    if channel == "sysv-shm":
        return libc.shmget(KEY, 0, 0) >= 0
    if channel == "sysv-msg":
        return libc.msgget(KEY, 0) >= 0
    if channel == "sysv-sem":
        return libc.semget(KEY, 0, 0) >= 0
    if channel == "posix-mq":
        q = libc.mq_open(NAME.encode(), os.O_RDONLY, 0, None)
        if q >= 0:
            libc.mq_close(q)
        return q >= 0
    if channel == "posix-shm":
        fd = libc.shm_open(NAME.encode(), os.O_RDONLY, 0)
        if fd >= 0:
            os.close(fd)
        return fd >= 0
    if channel == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect("\0" + NAME)
            return True
        except OSError:
            return False
        finally:
            s.close()
    raise SystemExit("unknown channel " + channel)


def watch():
    """A watch on the file (or its folder): whether another's read shows."""
    if channel == "inotify":
        fd = libc.inotify_init1(IN_NONBLOCK)
        if fd < 0:
            return err("inotify_init1")
        if libc.inotify_add_watch(fd, shared.encode(), IN_OPEN | IN_ACCESS) < 0:
            return err("inotify_add_watch")
        ready, _, _ = select.select([fd], [], [], 4.0)
        return bool(ready)
    if channel == "dnotify":
        hits = []
        signal.signal(signal.SIGIO, lambda *_: hits.append(1))
        d = os.open(os.path.dirname(shared), os.O_RDONLY)
        try:
            fcntl.fcntl(d, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
        except OSError as e:
            return f"F_NOTIFY: errno {e.errno}"
        end = time.time() + 4.0
        while time.time() < end and not hits:
            time.sleep(0.05)
        return bool(hits)
    if channel == "fanotify":
        fd = libc.fanotify_init(0, os.O_RDONLY)
        if fd < 0:
            return err("fanotify_init")
        if libc.fanotify_mark(fd, 1, IN_OPEN | IN_ACCESS, -100, shared.encode()) < 0:
            return err("fanotify_mark")
        ready, _, _ = select.select([fd], [], [], 4.0)
        return bool(ready)
    return None


if role == "send":
    try:
        held = send()
    except OSError as e:
        sys.exit(print("cannot", e))
    print("set", flush=True)
    time.sleep(HOLD)
    cleanup(held)
else:
    time.sleep(1.0)
    seen = watch()
    if seen is None:
        seen = False
        end = time.time() + 4.0
        while time.time() < end and not seen:
            try:
                seen = probe()
            except OSError as e:
                seen = f"errno {e.errno}"
                break
            time.sleep(0.1)
    if seen is True:
        print("seen")
    else:
        print("unseen", "" if seen is False else seen)
