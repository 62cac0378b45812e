/* rtnetlink requests and their answers (netlink.h). */
#include <config.h>
#include "core/net/netlink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/utils.h"

#define NL_RECV_MAX 32768

int
nl_socket (ocisbx_err **err)
{
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  int fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

  if (fd < 0)
    return err_set (err, errno, "netlink: socket");
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      err_set (err, errno, "netlink: bind");
      close (fd);
      return -1;
    }
  return fd;
}

void
nl_msg_init (nl_msg *m, uint16_t type, uint16_t flags, const void *hdr, size_t hdr_len)
{
  memset (m, 0, sizeof *m);
  m->u.h.nlmsg_len = NLMSG_LENGTH (hdr_len);
  m->u.h.nlmsg_type = type;
  m->u.h.nlmsg_flags = NLM_F_REQUEST | flags;
  memcpy (NLMSG_DATA (&m->u.h), hdr, hdr_len);
}

void
nl_msg_put (nl_msg *m, uint16_t type, const void *data, size_t len)
{
  size_t at = NLMSG_ALIGN (m->u.h.nlmsg_len);
  struct rtattr *a = (struct rtattr *) (m->u.buf + at);

  if (at + RTA_SPACE (len) > sizeof m->u.buf)
    abort ();
  a->rta_type = type;
  a->rta_len = RTA_LENGTH (len);
  memcpy (RTA_DATA (a), data, len);
  m->u.h.nlmsg_len = at + RTA_SPACE (len);
}

const struct rtattr *
nl_attr (const struct nlmsghdr *h, size_t hdr_len, unsigned short type)
{
  const struct rtattr *a;
  int len;

  if (h->nlmsg_len < NLMSG_LENGTH (hdr_len))
    return NULL;
  a = (const struct rtattr *) ((const char *) NLMSG_DATA (h) + NLMSG_ALIGN (hdr_len));
  len = (int) (h->nlmsg_len - NLMSG_LENGTH (NLMSG_ALIGN (hdr_len)));
  for (; RTA_OK (a, len); a = RTA_NEXT (a, len))
    if (a->rta_type == type)
      return a;
  return NULL;
}

/* One datagram of the answer: 1 when it ended it, 0 when more follow, -1 on error. */
static int
nl_read_one (int fd, uint32_t seq, char *buf, nl_reply_fn fn, void *arg, const char *what, ocisbx_err **err)
{
  struct nlmsghdr *h;
  ssize_t n;
  int len;

  do
    n = recv (fd, buf, NL_RECV_MAX, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return err_set (err, errno, "netlink: %s: read the answer", what);
  len = (int) n;
  for (h = (struct nlmsghdr *) buf; NLMSG_OK (h, (unsigned) len); h = NLMSG_NEXT (h, len))
    {
      if (h->nlmsg_seq != seq)
        continue;
      if (h->nlmsg_type == NLMSG_DONE)
        return 1;
      if (h->nlmsg_type == NLMSG_ERROR)
        {
          const struct nlmsgerr *e = NLMSG_DATA (h);
          if (h->nlmsg_len < NLMSG_LENGTH (sizeof *e))
            return err_set (err, EPROTO, "netlink: %s: short error message", what);
          if (e->error != 0)
            return err_set (err, -e->error, "netlink: %s", what);
          return 1;
        }
      if (fn)
        fn (h, arg);
    }
  return 0;
}

int
nl_talk (int fd, nl_msg *m, nl_reply_fn fn, void *arg, const char *what, ocisbx_err **err)
{
  static const struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  cleanup_free char *buf = NULL;
  struct nlmsghdr *h = &m->u.h;
  uint32_t seq = (uint32_t) monotonic_ms ();
  int r;

  /* a dump is a GET (rtnetlink's types: 4n + 2) with both of NLM_F_DUMP's bits, which
     are also NLM_F_REPLACE and NLM_F_EXCL of the other requests */
  if ((h->nlmsg_type & 3) != 2 || (h->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
    h->nlmsg_flags |= NLM_F_ACK;
  h->nlmsg_seq = seq;
  if (sendto (fd, h, h->nlmsg_len, 0, (const struct sockaddr *) &kernel, sizeof kernel) < 0)
    return err_set (err, errno, "netlink: %s: send", what);
  buf = xmalloc0 (NL_RECV_MAX);
  do
    r = nl_read_one (fd, seq, buf, fn, arg, what, err);
  while (r == 0);
  return r < 0 ? -1 : 0;
}
