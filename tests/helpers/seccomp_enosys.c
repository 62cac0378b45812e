/* seccomp_enosys NR...: makes each system call NR (a raw number, all arguments 0)
   and prints "NR=ok" or "NR=<errno name>" on a line, so a test sees what the seccomp
   filter answered: the raw syscall(2) keeps libc from hiding ENOSYS behind a fallback.
   Static (built by tests/seccomp.bats): the container's rootfs has no libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      long nr = strtol (argv[i], NULL, 0);
      long r = syscall (nr, 0, 0, 0, 0, 0, 0);
      if (r < 0)
        printf ("%ld=%s\n", nr, strerrorname_np (errno) ? strerrorname_np (errno) : "?");
      else
        printf ("%ld=ok\n", nr);
    }
  return 0;
}
