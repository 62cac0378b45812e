#include <config.h>
#include "core/process/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/utils.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO ('T', 0x41)
#endif

int
terminal_connect_socket (const char *path, ocisbx_err **err)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_close int fd = -1;

  if (strlen (path) >= sizeof addr.sun_path)
    return err_setk (err, ERR_USAGE, 0, "--console-socket `%s`: path too long", path);
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return err_set (err, errno, "socket");
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    return err_set (err, errno, "connect to the console socket `%s`", path);
  return steal_fd (&fd);
}

int
terminal_open_pty (int *master, int *slave, char *name, size_t name_len, ocisbx_err **err)
{
  cleanup_close int m = open ("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  int n = -1, s;

  if (m < 0)
    return err_set (err, errno, "open /dev/ptmx in the container (is /dev/pts mounted?)");
  if (unlockpt (m) < 0)
    return err_set (err, errno, "unlockpt");
  if (ioctl (m, TIOCGPTN, &n) < 0)
    return err_set (err, errno, "TIOCGPTN");
  snprintf (name, name_len, "/dev/pts/%d", n);
  /* The peer of this very master, whatever is mounted on /dev/pts. */
  s = ioctl (m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (s < 0)
    {
      s = open (name, O_RDWR | O_NOCTTY | O_CLOEXEC);
      if (s < 0)
        return err_set (err, errno, "open `%s`", name);
    }
  *master = steal_fd (&m);
  *slave = s;
  return 0;
}

int
terminal_send_fd (int sock, int fd, const char *name, ocisbx_err **err)
{
  struct iovec iov = { (void *) name, strlen (name) };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c;

  memset (&u, 0, sizeof u);
  c = CMSG_FIRSTHDR (&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof (int));
  while (sendmsg (sock, &mh, MSG_NOSIGNAL) < 0)
    if (errno != EINTR)
      return err_set (err, errno, "send the pty master over the console socket");
  return 0;
}

int
terminal_set_size (int fd, const struct winsize *ws, ocisbx_err **err)
{
  if (ioctl (fd, TIOCSWINSZ, ws) < 0)
    return err_set (err, errno, "set the terminal size (process.consoleSize)");
  return 0;
}

bool
terminal_caller_size (struct winsize *ws)
{
  return ioctl (STDIN_FILENO, TIOCGWINSZ, ws) == 0 || ioctl (STDOUT_FILENO, TIOCGWINSZ, ws) == 0;
}

int
terminal_prepare_slave (int slave, uid_t uid, gid_t gid, ocisbx_err **err)
{
  struct stat st;

  if (fstat (slave, &st) < 0)
    return err_set (err, errno, "stat the pty");
  /* a group of our own means the devpts mount has none to give */
  if (fchown (slave, uid, st.st_gid == getegid () ? gid : (gid_t) -1) < 0 && errno != EPERM && errno != EINVAL
      && errno != EROFS)
    return err_set (err, errno, "chown the pty to %u:%u (process.user)", (unsigned) uid, (unsigned) gid);
  return 0;
}

int
terminal_make_stdio (int slave, bool ctty, ocisbx_err **err)
{
  if (ctty && ioctl (slave, TIOCSCTTY, 0) < 0)
    return err_set (err, errno, "make the pty the controlling terminal");
  for (int fd = 0; fd < 3; fd++)
    if (dup2 (slave, fd) < 0)
      return err_set (err, errno, "dup2 the pty to fd %d", fd);
  return 0;
}

/* ---- relay ---- */

static void
keep (terminal_relay *r, const char *buf, size_t n)
{
  if (n > sizeof r->pending - r->n_pending)
    n = sizeof r->pending - r->n_pending;
  memcpy (r->pending + r->n_pending, buf, n);
  r->n_pending += n;
}

void
terminal_relay_prepare (terminal_relay *r)
{
  struct termios t;

  memset (r, 0, sizeof *r);
  r->master = -1;
  r->in_open = r->out_open = true;
  r->in_tty = tcgetattr (STDIN_FILENO, &r->saved) == 0;
  if (!r->in_tty)
    return;
  t = r->saved;
  if (t.c_lflag & ICANON)
    {
      /* From now on no end of file (a ^D stays a byte for the pty) and no echo (the
         pty echoes); then what was completed before. */
      struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
      char buf[512], eof = (char) r->saved.c_cc[VEOF];
      t.c_cc[VEOF] = _POSIX_VDISABLE;
      t.c_lflag &= ~(ECHO | ECHONL);
      tcsetattr (STDIN_FILENO, TCSANOW, &t);
      while (r->n_pending < sizeof r->pending && poll (&p, 1, 0) > 0 && (p.revents & POLLIN))
        {
          ssize_t n = read (STDIN_FILENO, buf, sizeof buf);
          if (n < 0)
            break;
          if (n == 0)
            keep (r, &eof, 1);
          else
            keep (r, buf, n);
        }
    }
  /* all of it, output too: the bytes reach the caller's terminal as the pty's line
     discipline made them (ONLCR there), the way ssh and script(1) pass them on */
  cfmakeraw (&t);
  if (tcsetattr (STDIN_FILENO, TCSANOW, &t) == 0)
    r->raw = true;
  else
    tcsetattr (STDIN_FILENO, TCSANOW, &r->saved);
}

static void
to_master (terminal_relay *r, const char *buf, size_t n)
{
  if (n == 0)
    return;
  write_all (r->master, buf, n);
  r->sent = true;
  r->sent_nl = buf[n - 1] == '\n';
}

int
terminal_relay_start (terminal_relay *r, int master, ocisbx_err **err)
{
  (void) err;
  r->master = master;
  to_master (r, r->pending, r->n_pending);
  r->n_pending = 0;
  terminal_relay_resize (r);
  return 0;
}

void
terminal_relay_resize (terminal_relay *r)
{
  struct winsize ws;
  if (r->master >= 0 && terminal_caller_size (&ws))
    ioctl (r->master, TIOCSWINSZ, &ws);
}

/* EOF: -1; else 0. */
static int
pump (int from, char *buf, size_t size, ssize_t *got)
{
  ssize_t n;

  do
    n = read (from, buf, size);
  while (n < 0 && errno == EINTR);
  *got = n > 0 ? n : 0;
  if (n < 0 && errno == EAGAIN)
    return 0;
  return n <= 0 ? -1 : 0; /* EOF, or EIO once every slave end is closed */
}

/* The end of a stdin that is not a terminal, as a terminal's user types it. */
static void
send_eof (terminal_relay *r)
{
  struct termios t;
  char eof[2];

  if (tcgetattr (r->master, &t) < 0 || !(t.c_lflag & ICANON) || t.c_cc[VEOF] == _POSIX_VDISABLE)
    return;
  eof[0] = eof[1] = (char) t.c_cc[VEOF];
  write_all (r->master, eof, r->sent && !r->sent_nl ? 2 : 1);
}

void
terminal_relay_from_stdin (terminal_relay *r)
{
  char buf[8192];
  ssize_t n;

  if (!r->in_open)
    return;
  if (pump (STDIN_FILENO, buf, sizeof buf, &n) < 0)
    {
      r->in_open = false;
      if (!r->in_tty)
        send_eof (r);
    }
  to_master (r, buf, n);
}

void
terminal_relay_from_master (terminal_relay *r)
{
  char buf[8192];
  ssize_t n;

  if (!r->out_open)
    return;
  if (pump (r->master, buf, sizeof buf, &n) < 0)
    r->out_open = false;
  if (n > 0)
    write_all (STDOUT_FILENO, buf, n);
}

void
terminal_relay_finish (terminal_relay *r)
{
  while (r->out_open && r->master >= 0)
    {
      struct pollfd p = { r->master, POLLIN, 0 };
      if (poll (&p, 1, 0) <= 0)
        break;
      terminal_relay_from_master (r);
    }
  terminal_relay_restore (r);
}

void
terminal_relay_restore (terminal_relay *r)
{
  if (r->raw)
    tcsetattr (STDIN_FILENO, TCSANOW, &r->saved);
  r->raw = false;
}
