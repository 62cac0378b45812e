/* How the container's process is executed without exposing the host's ocisbx
   (CVE-2019-5736).

   A process that the runtime puts into a container runs ocisbx's code until its last
   execve.  Three things keep a container from reaching the runtime's binary:
   - while it is ocisbx, the process is not dumpable (PR_SET_DUMPABLE 0): no process of
     the container may open its /proc/PID/exe, ptrace it or read its fds, unless it
     holds CAP_SYS_PTRACE in our user namespace (a container without one of its own);
   - for such a container the runtime first re-executes itself from a read-only view of
     its binary (dmz_prepare's SEALED, cloned_binary.h), so that exe cannot be written;
   - its last execve runs ocisbx-dmz (src/dmz/dmz_main.c) from a sealed memfd, and the dmz
     executes the container's program.  A program that asks for /proc/self/exe as its
     interpreter gets the sealed dmz, which refuses to run it.

   The dmz is skipped (dmz_usable false) where it cannot work: a build without it (other
   architectures), a seccomp filter that would refuse our execveat(2), or an SELinux or
   AppArmor exec label (the label's domain may not be allowed to run an anonymous
   memfd).  Then the runtime re-executes itself from a sealed copy of its whole binary
   before it creates anything (cloned_binary.h), the protection runc 1.1 has. */
#ifndef OCISBX_DMZ_H
#define OCISBX_DMZ_H

#include <signal.h>
#include <stdbool.h>

#include "core/error.h"
#include "core/process/cloned_binary.h"
#include "core/process/process.h"
#include "core/seccomp/seccomp.h"

/* argv[0] the dmz requires: dmz_argv makes "ocisbx-dmz" PATH ARGV..., or
   "ocisbx-dmz-memcg" FD PATH ARGV...: the stub first writes "0" to the cgroup v1 "tasks"
   file FD (rejoining the container's memory cgroup, cgroups/join.h) and closes it. */
#define DMZ_ARGV0 "ocisbx-dmz"
#define DMZ_ARGV0_MEMCG "ocisbx-dmz-memcg"
/* "ocisbx-dmz-tree" OPTS PATH ARGV...: the stub is the reaper of an exec tree, which
   ends with its leader (src/dmz/tree.h says what it does and what OPTS holds).  Its
   parent-death signal (SIGRTMAX): the reaper then checks the runtime's pidfd. */
#define DMZ_ARGV0_TREE "ocisbx-dmz-tree"
#define DMZ_TREE_RUNTIME_GONE 64

/* A sealed, executable memfd holding the dmz (O_CLOEXEC), or -1 with *err.  In a build
   without the dmz: -1 with *err (ENOSYS). */
int dmz_memfd (ocisbx_err **err);

/* Whether the last exec may go through the dmz: the build has it, no exec label is set,
   and SECCOMP (NULL: none) lets `execveat (DMZ_FD, "", argv, envp, AT_EMPTY_PATH)`
   through whatever the pointers and the instruction pointer are. */
bool dmz_usable (const seccomp_prog *seccomp, int dmz_fd, const char *selinux_label, const char *apparmor_profile);

/* Whether SECCOMP lets the stub's write (fd, "0", 1) and close (fd) through, whatever the
   fd and pointer: then it may rejoin a memory cgroup. */
bool dmz_memcg_usable (const seccomp_prog *seccomp);

/* Whether SECCOMP lets the exec tree's reaper make its system calls (src/dmz/tree.h):
   TTY, the leader takes the pty as its controlling terminal; FOREGROUND, the reaper
   arms its parent-death signal and checks the runtime through a pidfd.  0, or -1 with
   *err naming the first call refused; -1 as well in a build without the dmz. */
int dmz_tree_check (const seccomp_prog *seccomp, bool tty, bool foreground, ocisbx_err **err);

/* OPTS of "ocisbx-dmz-tree" (src/dmz/tree.h) into BUF: the leader's signal MASK, its
   NFDS fds, the runtime's PIDFD (-1: detached), TTY the leader's controlling terminal. */
#define DMZ_TREE_OPTS_SIZE 64
const char *dmz_tree_opts (const sigset_t *mask, int nfds, int pidfd, bool tty, char buf[DMZ_TREE_OPTS_SIZE]);

/* The dmz's argv: "ocisbx-dmz" PATH ARGV..., or (MEMCG_FD >= 0, an fd left open across
   the exec) "ocisbx-dmz-memcg" MEMCG_FD PATH ARGV..., with MEMCG_FD's number written to
   FDNUM, or (TREE_OPTS not NULL) "ocisbx-dmz-tree" TREE_OPTS PATH ARGV....  A malloc'd
   array of the strings given (not copied). */
#define DMZ_FDNUM_SIZE 16
char **dmz_argv (int memcg_fd, const char *tree_opts, const char *path, char *const argv[],
                 char fdnum[DMZ_FDNUM_SIZE]);
/* execveat (DMZ_FD, "", ARGV, ENVP, AT_EMPTY_PATH) with ARGV from dmz_argv: the one
   call dmz_usable checks.  Returns only on failure (-1, errno set). */
int dmz_execveat (int dmz_fd, char *const argv[], char *const envp[]);

/* The choice for PLAN's last exec: through the dmz (PLAN->via_dmz, with its memfd in
   PLAN->dmz_fd) when dmz_usable, else dmz_fallback_reexec (CALLER).  SEALED: the
   runtime's code runs in the container's namespaces where its processes may hold
   CAP_SYS_PTRACE over ours (no user namespace between us), so it runs from a sealed
   copy whatever the last exec is: dmz_fallback_reexec first.  Call before anything is
   created. */
int dmz_prepare (process_plan *plan, const seccomp_prog *seccomp, bool sealed, const caller_signals *caller,
                 ocisbx_err **err);

/* The re-exec fallback: re-execute the running command (its /proc/self/cmdline and
   environ) from a sealed copy of the binary, unless it already runs from one (then 0).
   Call only before anything is created: the new image starts the command again.
   CALLER (may be NULL: ours): the signals the new image must start with. */
int dmz_fallback_reexec (const caller_signals *caller, ocisbx_err **err);

#endif
