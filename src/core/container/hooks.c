#include <config.h>
#include "core/container/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"

#define HOOK_OUTPUT_MAX 4096

static void
trim (char *s)
{
  size_t n = strlen (s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
    s[--n] = '\0';
}

extern char **environ;

static int
spawn_hook (const oci_hook *h, char *const *default_env, int in_fd, int out_fd, pid_t *pid)
{
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t none, all;
  cleanup_free char **argv = NULL;
  cleanup_free char **envp = NULL;
  int r;

  argv = xmalloc0 ((h->args_len + 2) * sizeof (char *));
  if (h->args_len)
    memcpy (argv, h->args, h->args_len * sizeof (char *));
  else
    argv[0] = h->path;
  /* a hook without env gets ours, as in runc and crun */
  envp = xmalloc0 ((h->env_len + 1) * sizeof (char *));
  if (h->env_len)
    memcpy (envp, h->env, h->env_len * sizeof (char *));

  sigemptyset (&none);
  sigfillset (&all);
  sigdelset (&all, SIGKILL);
  sigdelset (&all, SIGSTOP);
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, in_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2 (&fa, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2 (&fa, out_fd, STDERR_FILENO);
  posix_spawnattr_init (&attr);
  posix_spawnattr_setsigmask (&attr, &none);
  posix_spawnattr_setsigdefault (&attr, &all);
  posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  r = posix_spawn (pid, h->path, &fa, &attr, argv, h->env_len ? envp : default_env ? default_env : environ);
  posix_spawn_file_actions_destroy (&fa);
  posix_spawnattr_destroy (&attr);
  return r;
}

static int
run_one (const oci_hook *h, size_t idx, const char *state_json, const char *phase, char *const *default_env,
         ocisbx_err **err)
{
  int sv[2], pp[2];
  cleanup_close int in_w = -1, in_r = -1, out_r = -1, out_w = -1, pidfd = -1;
  char out[HOOK_OUTPUT_MAX + 1];
  size_t out_len = 0;
  long long deadline = h->timeout && *h->timeout > 0 ? monotonic_ms () + *h->timeout * 1000LL : -1;
  pid_t pid;
  int status = 0, r;
  bool exited = false, timed_out = false;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return err_set (err, errno, "%s hook #%zu: socketpair", phase, idx);
  in_w = sv[0];
  in_r = sv[1];
  if (pipe2 (pp, O_CLOEXEC) < 0)
    return err_set (err, errno, "%s hook #%zu: pipe", phase, idx);
  out_r = pp[0];
  out_w = pp[1];

  r = spawn_hook (h, default_env, in_r, out_w, &pid);
  if (r != 0)
    return err_set (err, r, "%s hook #%zu: exec `%s`", phase, idx, h->path);
  close (steal_fd (&in_r));
  close (steal_fd (&out_w));

  /* The state goes to stdin; a hook that does not read it may close it: fine. */
  if (state_json)
    {
      size_t len = strlen (state_json), done = 0;
      while (done < len)
        {
          ssize_t w = send (in_w, state_json + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            break; /* EPIPE, or a hook that never reads a large state: give up on stdin */
          done += w;
        }
    }
  close (steal_fd (&in_w));

  pidfd = syscall (SYS_pidfd_open, pid, 0);
  for (;;)
    {
      struct pollfd pfd[2];
      nfds_t n = 0;
      int timeout = -1;

      if (out_r >= 0)
        pfd[n++] = (struct pollfd){ out_r, POLLIN, 0 };
      if (pidfd >= 0 && !exited)
        pfd[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
      if (n == 0)
        break;
      if (exited)
        timeout = 0; /* just drain what is there: a daemon child may hold the pipe */
      else if (deadline >= 0)
        {
          long long left = deadline - monotonic_ms ();
          if (left <= 0)
            {
              kill (pid, SIGKILL);
              timed_out = true;
              break;
            }
          timeout = left > 1000000 ? 1000000 : (int) left;
        }
      r = poll (pfd, n, timeout);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          if (exited || r < 0)
            break;
          continue; /* the deadline check above fires */
        }
      for (nfds_t i = 0; i < n; i++)
        {
          if (pfd[i].revents == 0)
            continue;
          if (pfd[i].fd == pidfd)
            exited = true;
          else
            {
              char buf[1024];
              ssize_t got = read (out_r, buf, sizeof buf);
              if (got <= 0)
                close (steal_fd (&out_r));
              else
                {
                  size_t keep = (size_t) got < HOOK_OUTPUT_MAX - out_len ? (size_t) got : HOOK_OUTPUT_MAX - out_len;
                  memcpy (out + out_len, buf, keep);
                  out_len += keep;
                }
            }
        }
    }
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  out[out_len] = '\0';
  trim (out);
  if (timed_out)
    return err_set (err, 0, "%s hook #%zu (`%s`): timed out after %lld seconds%s%s", phase, idx, h->path,
                    (long long) *h->timeout, out_len ? ": " : "", out);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  if (WIFSIGNALED (status))
    return err_set (err, 0, "%s hook #%zu (`%s`): killed by signal %d%s%s", phase, idx, h->path,
                    WTERMSIG (status), out_len ? ": " : "", out);
  return err_set (err, 0, "%s hook #%zu (`%s`): exited with status %d%s%s", phase, idx, h->path,
                  WEXITSTATUS (status), out_len ? ": " : "", out);
}

int
hooks_run (const oci_hook *h, size_t n, const char *state_json, const char *phase, char *const *default_env,
           ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    if (run_one (&h[i], i, state_json, phase, default_env, err) < 0)
      return -1;
  return 0;
}

void
hooks_run_all (const oci_hook *h, size_t n, const char *state_json, const char *phase)
{
  for (size_t i = 0; i < n; i++)
    {
      cleanup_err ocisbx_err *err = NULL;
      if (run_one (&h[i], i, state_json, phase, NULL, &err) < 0)
        log_warning ("%s", err->msg);
    }
}
