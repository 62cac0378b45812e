/* Joining namespaces, the one way create and exec do it.
 *
 * The order (nsjoin_kind): user first, so that its capabilities are what the setns(2)
 * of every namespace it owns is checked against; mount last, so that every path opened
 * before (/proc/PID/ns files, /proc/self/ns to come back to) is the runtime's.  Coming
 * back (ns_leave, namespaces.c) goes the other way: the user namespace last.
 *
 * Two ways in:
 *   - nsjoin_fds: namespace files already open (create: linux.namespaces[].path, opened
 *     and checked by ns_prepare), one setns each, in the order;
 *   - nsjoin_process: the namespaces of a running process (exec: the init's; create: a
 *     mount namespace to look into): one setns(2) on its pidfd with every flag (Linux
 *     5.8: all or none), else, on an older kernel or without a pidfd, its
 *     /proc/PID/ns/<name> files, every one opened before the first is joined (after the
 *     user namespace, /proc/PID may no longer be ours to read).
 * Every setns goes through the syscall seam (syscalls.h): tests/unit/test_nsjoin.c
 * checks the calls and their order without root.  An error names the namespace.
 */
#ifndef OCISBX_NSJOIN_H
#define OCISBX_NSJOIN_H

#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* How many kinds of namespace there are (the length of the order). */
#define NS_MAX 8

typedef struct ns_join_entry
{
  int flag; /* CLONE_NEW* */
  int fd;   /* open namespace file */
} ns_join_entry;

/* The kind of namespace (CLONE_NEW*) at I in the order of joining; 0 from NS_MAX on. */
int nsjoin_kind (size_t i);
/* "pid" -> CLONE_NEWPID (the OCI type), ...; 0 when unknown. */
int ns_flag_of (const char *type);
/* CLONE_NEWPID -> "pid" (the /proc/PID/ns name), or NULL. */
const char *ns_proc_name (int flag);

/* E[0..N) into the order of joining. */
void nsjoin_sort (ns_join_entry *e, size_t n);
/* setns (E[i].fd, E[i].flag) for each of E[0..N) (in the order: nsjoin_sort) whose flag
   is not in SKIP; stops at the first that fails ("setns <name> namespace"). */
int nsjoin_fds (const ns_join_entry *e, size_t n, int skip, ocisbx_err **err);
/* Join the namespaces FLAGS (CLONE_NEW*) of the process PID: through PIDFD (-1: none),
   else the files of PROCFD, its /proc/PID directory (-1: opened by path). */
int nsjoin_process (int pidfd, int procfd, pid_t pid, int flags, ocisbx_err **err);

#endif
