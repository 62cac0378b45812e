/* rtnetlink, the few requests netdevices.c makes: one message built in a fixed buffer,
 * sent on a NETLINK_ROUTE socket (of the network namespace it was made in), its answer
 * read to the acknowledgement (or, for a dump, to NLMSG_DONE). */
#ifndef OCISBX_NETLINK_H
#define OCISBX_NETLINK_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define NL_MSG_MAX 512

typedef struct nl_msg
{
  union
  {
    struct nlmsghdr h;
    char buf[NL_MSG_MAX];
  } u;
} nl_msg;

/* A NETLINK_ROUTE socket, close-on-exec, in the caller's network namespace. */
int nl_socket (ocisbx_err **err);

/* A request of TYPE (RTM_*) with FLAGS (NLM_F_REQUEST is added), whose family header
   (ifinfomsg, ifaddrmsg) is HDR of HDR_LEN bytes. */
void nl_msg_init (nl_msg *m, uint16_t type, uint16_t flags, const void *hdr, size_t hdr_len);
/* One attribute; aborts when the message would outgrow NL_MSG_MAX (a programming error:
   the runtime's requests are small and fixed). */
void nl_msg_put (nl_msg *m, uint16_t type, const void *data, size_t len);

/* Each message of the answer (NLMSG_ERROR and NLMSG_DONE excepted).  The answer is
   always read to its end: nothing of it is left for the next request. */
typedef void (*nl_reply_fn) (const struct nlmsghdr *h, void *arg);
/* Send M and read its answer: FN (may be NULL) sees each message.  A request that is no
   dump asks for an acknowledgement; the kernel's error becomes *ERR (its errno kept),
   described by WHAT. */
int nl_talk (int fd, nl_msg *m, nl_reply_fn fn, void *arg, const char *what, ocisbx_err **err);

/* The attribute TYPE of message H whose family header is HDR_LEN bytes, or NULL. */
const struct rtattr *nl_attr (const struct nlmsghdr *h, size_t hdr_len, unsigned short type);

#endif
