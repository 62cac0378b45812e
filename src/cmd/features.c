/* ocisbx features: print the runtime-spec features document. */
#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/features.h"
#include "core/utils.h"

static const char features_help[]
    = "Usage: ocisbx features\n"
      "\n"
      "Print the runtime-spec features document (JSON): the spec versions, hooks,\n"
      "mount options, namespaces, capabilities, cgroup, seccomp and LSM support of\n"
      "this build on this host.\n";

int
cmd_features (const ocisbx_globals *g, int argc, char **argv)
{
  oci_features *f = NULL;
  ocisbx_err *err = NULL;
  cleanup_free char *json = NULL;
  char *msg = NULL;
  size_t len = 0;

  if (cmd_wants_help (argc, argv, features_help))
    return 0;
  if (argc > 1)
    return cmd_usage_error ("features", "unexpected argument \"%s\"", argv[1]);
  if (features_document (&f, &err) < 0)
    return cmd_fail (err);
  int r = oci_features_generate (f, true, &json, &len, &msg);
  oci_features_free (f);
  if (r < 0)
    {
      err_take (&err, 0, msg);
      return cmd_fail (err);
    }
  if (fwrite (json, 1, len, stdout) != len || fflush (stdout) != 0)
    {
      err_set (&err, errno, "write the features document");
      return cmd_fail (err);
    }
  return 0;
}
