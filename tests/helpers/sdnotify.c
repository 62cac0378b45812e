/* sdnotify MESSAGE...: each MESSAGE as one datagram to $NOTIFY_SOCKET (sd_notify's
   protocol), for busybox containers in tests/notify.bats; built static at test time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  const char *path = getenv ("NOTIFY_SOCKET");
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;

  if (path == NULL || strlen (path) >= sizeof sa.sun_path)
    {
      fprintf (stderr, "sdnotify: NOTIFY_SOCKET is unset or too long\n");
      return 2;
    }
  strcpy (sa.sun_path, path);
  if (sa.sun_path[0] == '@')
    sa.sun_path[0] = '\0';
  fd = socket (AF_UNIX, SOCK_DGRAM, 0);
  for (int i = 1; i < argc; i++)
    if (fd < 0 || sendto (fd, argv[i], strlen (argv[i]), 0, (struct sockaddr *) &sa, sizeof sa) < 0)
      {
        perror ("sdnotify");
        return 1;
      }
  return 0;
}
