#!/usr/bin/env python3
"""notify_listen.py SOCKET OUT: the caller's end of sd_notify (a datagram socket at
SOCKET, as systemd's or podman's); each message goes to OUT as one line (newlines in it
as "|").  Runs until killed."""
import os
import socket
import sys

path, out = sys.argv[1], sys.argv[2]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a") as f:
    f.write("listening\n")
    f.flush()
    while True:
        msg = s.recv(4096).decode(errors="replace")
        f.write(msg.rstrip("\n").replace("\n", "|") + "\n")
        f.flush()
