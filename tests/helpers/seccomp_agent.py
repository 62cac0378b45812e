#!/usr/bin/env python3
"""A tiny seccomp agent for the SCMP_ACT_NOTIFY tests (x86_64 struct layouts).

  seccomp_agent.py SOCKET STATE_OUT [--errno N]

Listens on the unix socket SOCKET (linux.seccomp.listenerPath).  For each connection
it reads the container process state sent by the runtime with the seccomp fd
(SCM_RIGHTS) and writes {"state": <the JSON>, "nfds": <fds received>} to STATE_OUT
(atomically).  Then it answers notifications: mkdir/mkdirat fail with errno N
(default ENOMEDIUM, "No medium found"); any other syscall continues.
"""
import errno
import fcntl
import json
import os
import select
import socket
import struct
import sys

NOTIF = struct.Struct("=QIIiIQ6Q")  # struct seccomp_notif: id pid flags | nr arch ip args[6]
RESP = struct.Struct("=QqiI")  # struct seccomp_notif_resp: id val error flags
IOCTL_RECV = 0xC0502100  # SECCOMP_IOWR(0, struct seccomp_notif)
IOCTL_SEND = 0xC0182101  # SECCOMP_IOWR(1, struct seccomp_notif_resp)
FLAG_CONTINUE = 1
MKDIR_NRS = {83, 258}  # x86_64 mkdir, mkdirat


def receive(conn):
    """The state comes in one message with the fds; read on only while the JSON is
    incomplete (a runtime may keep the connection open: do not wait for EOF)."""
    data, fds = b"", []
    while True:
        msg, got, _flags, _addr = socket.recv_fds(conn, 1 << 20, 4)
        fds += got
        data += msg
        if not msg:
            return data, fds
        try:
            json.loads(data)
            return data, fds
        except ValueError:
            continue


def answer(nfd, err):
    buf = bytearray(NOTIF.size)
    try:
        fcntl.ioctl(nfd, IOCTL_RECV, buf, True)
    except OSError as e:
        return e.errno in (errno.EINTR, errno.ENOENT)  # interrupted, or the target died
    nid, _pid, _flags, nr = NOTIF.unpack(buf)[:4]
    if nr in MKDIR_NRS:
        resp = RESP.pack(nid, 0, -err, 0)
    else:
        resp = RESP.pack(nid, 0, 0, FLAG_CONTINUE)
    try:
        fcntl.ioctl(nfd, IOCTL_SEND, bytearray(resp), True)
    except OSError:
        pass
    return True


def main():
    sock_path, out = sys.argv[1], sys.argv[2]
    err = errno.ENOMEDIUM
    if "--errno" in sys.argv:
        err = int(sys.argv[sys.argv.index("--errno") + 1])
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    srv.bind(sock_path)
    srv.listen(4)
    poll = select.poll()
    poll.register(srv, select.POLLIN)
    notify = set()
    while True:
        for fd, ev in poll.poll():
            if fd == srv.fileno():
                conn, _ = srv.accept()
                with conn:
                    data, fds = receive(conn)
                try:
                    state = json.loads(data)
                except ValueError:
                    state = data.decode(errors="replace")
                with open(out + ".tmp", "w") as f:
                    json.dump({"state": state, "nfds": len(fds)}, f)
                os.rename(out + ".tmp", out)
                for nfd in fds:
                    notify.add(nfd)
                    poll.register(nfd, select.POLLIN)
            elif ev & select.POLLIN:
                answer(fd, err)
            elif ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                poll.unregister(fd)
                notify.discard(fd)
                os.close(fd)


if __name__ == "__main__":
    main()
