/* linux.seccomp through libseccomp.  The parent compiles the filter (or takes it from the
   cache under --root); the child loads it as its last step before execve.

   Parent                                      Child (after clone)
   ------                                      -------------------
   seccomp_validate (sc)      before anything is created
   seccomp_prepare (sc, "<root>/seccomp-cache", &prog)
                                               ... everything of the process ...
                                               seccomp_prog_load (prog, &nfd)   no libseccomp here
                                               (process_final.c: load_filter)
                                               if nfd >= 0: send nfd's NUMBER on the sync
                                               channel (write(2) or sendmsg(2) only: NOTIFY
                                               on those is refused by seccomp_validate),
                                               wait for the ack, close (nfd)
   nfd = seccomp_fetch_listener_fd (child_pid, number)   (pidfd_getfd)
   seccomp_send_listener_pid (sc, nfd, pid, state_json)  then ack, close our nfd
                                               execve
*/
#ifndef OCISBX_SECCOMP_H
#define OCISBX_SECCOMP_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

typedef struct seccomp_prog seccomp_prog;

/* Checks the whole object (actions, operators, architectures, flags, kernel support
   of the flags, NOTIFY needs listenerPath...) before anything is created.  Errors name
   the field: `config.json: .linux.seccomp.flags[0]: unknown flag "X"`. */
int seccomp_validate (const oci_seccomp *sc, ocisbx_err **err);

/* CACHE_DIR may be NULL (no cache). *out is NULL when the config has no seccomp.
   Validates, then compiles the filter to BPF (or takes it from the cache), with the
   -ENOSYS stub of seccomp_enosys.h in front when the default action refuses. */
int seccomp_prepare (const oci_seccomp *sc, const char *cache_dir, seccomp_prog **out, ocisbx_err **err);
/* In the child, as late as it can be (process_final.c says what may follow): one
   seccomp(2) call, no allocation on success.  *notify_fd is the listener fd (O_CLOEXEC) when the
   filter has SCMP_ACT_NOTIFY rules, else -1.  P == NULL loads nothing.
   Without noNewPrivileges the process must still hold CAP_SYS_ADMIN: else EACCES and an
   error saying so (runc and crun load before dropping capabilities in that case). */
int seccomp_prog_load (const seccomp_prog *p, int *notify_fd, ocisbx_err **err);
/* True when seccomp_prog_load will return a listener fd. */
bool seccomp_prog_has_listener (const seccomp_prog *p);
/* Parent: a copy of the child's fd number CHILD_FD (pidfd_open + pidfd_getfd; O_CLOEXEC). */
int seccomp_fetch_listener_fd (pid_t child, int child_fd, ocisbx_err **err);
/* After start: send the notify fd + state to linux.seccomp.listenerPath.  STATE_JSON is
   the container's state document; the pid is read from it (through libocispec). */
int seccomp_send_listener (const oci_seccomp *sc, int notify_fd, const char *state_json, ocisbx_err **err);
/* Same, with the pid given: sends the container process state
   {"ociVersion","fds":["seccompFd"],"pid","metadata","state"} (libocispec's
   oci_process_state, STATE_JSON parsed into it) with NOTIFY_FD as SCM_RIGHTS over a
   SOCK_STREAM connection, then closes it. */
int seccomp_send_listener_pid (const oci_seccomp *sc, int notify_fd, pid_t pid, const char *state_json,
                               ocisbx_err **err);
void seccomp_prog_free (seccomp_prog *p);
#define cleanup_seccomp_prog __attribute__ ((cleanup (seccomp_prog_freep)))
void seccomp_prog_freep (seccomp_prog **p);

/* What the filter answers to one system call, computed in user space (seccomp_eval.c):
   the SECCOMP_RET_* value the kernel would return for D.  Malformed programs answer
   SECCOMP_RET_KILL_PROCESS. */
struct sock_filter;
struct seccomp_data;
uint32_t seccomp_bpf_run (const struct sock_filter *insns, size_t len, const struct seccomp_data *d);
/* True for the answers that run the call: ALLOW and LOG. */
bool seccomp_bpf_allows (uint32_t ret);
/* seccomp_bpf_allows of P's answer to D; a NULL P allows everything. */
bool seccomp_prog_allows (const seccomp_prog *p, const struct seccomp_data *d);

/* Introspection, for `features` and the unit tests. */
size_t seccomp_prog_len (const seccomp_prog *p); /* BPF instructions */
const void *seccomp_prog_insns (const seccomp_prog *p);
unsigned int seccomp_prog_flags (const seccomp_prog *p); /* SECCOMP_FILTER_FLAG_* passed to seccomp(2) */
bool seccomp_prog_from_cache (const seccomp_prog *p);

/* NULL-terminated lists of what this build understands. */
extern const char *const seccomp_known_actions[];
extern const char *const seccomp_known_operators[];
extern const char *const seccomp_known_flags[];
/* The SCMP_ARCH_* names libseccomp can add: up to MAX into OUT (static strings). */
size_t seccomp_known_archs (const char **out, size_t max);
/* Whether the running kernel accepts the flag (probed with seccomp(2), nothing loaded). */
bool seccomp_flag_supported (const char *flag);

/* Name -> value translation (0, or -1 when unknown).  An action takes ERRNO_RET for
   SCMP_ACT_ERRNO and SCMP_ACT_TRACE (EPERM when NULL). */
int seccomp_action_value (const char *name, const uint32_t *errno_ret, uint32_t *out);
int seccomp_operator_value (const char *name, int *out);       /* enum scmp_compare */
int seccomp_flag_value (const char *name, unsigned int *out);  /* SECCOMP_FILTER_FLAG_* */
int seccomp_arch_value (const char *name, uint32_t *out);       /* SCMP_ARCH_* token */

#endif
