/* STUB until the seccomp work lands. */
#include <config.h>
#include "seccomp.h"

int
seccomp_prepare (const oci_seccomp *sc, const char *cache_dir, seccomp_prog **out, ocisbx_err **err)
{
  *out = NULL;
  if (sc == NULL)
    return 0;
  return err_set (err, 0, "config.json: .linux.seccomp: not implemented yet");
}
int seccomp_load (const seccomp_prog *p, int *notify_fd, ocisbx_err **err) { *notify_fd = -1; return 0; }
int seccomp_send_listener (const oci_seccomp *sc, int notify_fd, const char *state_json, ocisbx_err **err) { return 0; }
void seccomp_prog_free (seccomp_prog *p) {}
