#!/usr/bin/env python3
"""Tiny --console-socket receiver for the bats suite.

  recvtty.py [--winsize FILE] [--send TEXT] [--out FILE] SOCKET

Listens on the unix stream socket SOCKET, accepts one connection and receives
the pty master fd sent with SCM_RIGHTS.  Then it writes "ROWS COLS" of the pty
(TIOCGWINSZ) to --winsize FILE, writes TEXT to the master if --send is given,
and copies everything read from the master to --out FILE (default stdout)
until the pty hangs up (all slave ends closed).  Exit 0 on success.
"""
import argparse
import array
import fcntl
import os
import socket
import struct
import sys
import termios


def recv_fd(conn):
    fds = array.array("i")
    msg, anc, _flags, _addr = conn.recvmsg(4096, socket.CMSG_SPACE(fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    if not fds:
        raise SystemExit("recvtty: no fd received (message %r)" % msg)
    return fds[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--winsize")
    ap.add_argument("--send")
    ap.add_argument("--out")
    ap.add_argument("socket")
    opt = ap.parse_args()

    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(opt.socket)
    srv.listen(1)
    conn, _ = srv.accept()
    master = recv_fd(conn)
    conn.close()
    srv.close()

    if opt.winsize:
        rows, cols, _x, _y = struct.unpack(
            "HHHH", fcntl.ioctl(master, termios.TIOCGWINSZ, b"\0" * 8))
        with open(opt.winsize, "w") as f:
            f.write("%d %d\n" % (rows, cols))
    if opt.send is not None:
        os.write(master, opt.send.encode())

    out = open(opt.out, "wb") if opt.out else sys.stdout.buffer
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the last slave fd was closed
            break
        if not data:
            break
        out.write(data)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
