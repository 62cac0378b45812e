/* runtime-spec 1.3's linux fields checked by the parent before a create: memoryPolicy's
   nodes, modes and flags against a node tree of the test's (process/mempolicy.c).
   intelRdt has test_intelrdt.c. */
#include <config.h>

#include "core/process/mempolicy.h"
#include "unit.h"
#include "unit_files.h"

/* FN's error message for linux.memoryPolicy JSON on the node tree NODES, or NULL when
   it passes (then *PLAN is the plan). */
static char *
mempolicy_error (const char *nodes, const char *json, mempolicy_plan *plan)
{
  char *cfg_json = xasprintf ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"memoryPolicy\": %s}}", json);
  oci_config *c = parse (cfg_json);
  ocisbx_err *e = NULL;
  char *msg = NULL;

  free (cfg_json);
  if (c == NULL)
    return xstrdup ("(no parse)");
  if (mempolicy_prepare (c->linux_->memory_policy, nodes, plan, &e) < 0)
    msg = xstrdup (e->msg);
  err_free (e);
  oci_config_free (c);
  return msg;
}

static void
test_mempolicy_nodes (void)
{
  char *d = mktree ();
  char *nodes = xasprintf ("%s/node", d);
  mempolicy_plan p;
  char *m;

  mkdirs (d, "node/node0");
  mkdirs (d, "node/node1");
  mkdirs (d, "node/node2");
  mkdirs (d, "node/node7");
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_INTERLEAVE\", \"nodes\": \"0-2,7\"}", &p);
  CHECK (m == NULL);
  CHECK (p.set && p.any_node && p.mode == 3);
  CHECK (p.nodes[0] == 0x87UL);
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_BIND\", \"nodes\": \"0,3\"}", &p);
  CHECK (m && strncmp (m, "config.json: .linux.memoryPolicy.nodes: node 3 does not exist (no `/tmp/", 71) == 0);
  CHECK (m && strstr (m, "/node/node3`)") != NULL);
  free (m);
  /* relative nodes are not host nodes: not checked */
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_BIND\", \"nodes\": \"3\", \"flags\": [\"MPOL_F_RELATIVE_NODES\"]}", &p);
  CHECK (m == NULL);
  CHECK (p.mode == (2 | (1 << 14)) && p.nodes[0] == 0x8UL);
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_BIND\", \"nodes\": \"2-1\"}", &p);
  CHECK_STR (m, "config.json: .linux.memoryPolicy.nodes: `2-1`: range 2-1 goes down");
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_BIND\", \"nodes\": \"0,,1\"}", &p);
  CHECK_STR (m, "config.json: .linux.memoryPolicy.nodes: `0,,1`: want a list like \"0-3,7\"");
  free (m);
  free (nodes);
  rmtree (d);
}

static void
test_mempolicy_modes_flags (void)
{
  char *d = mktree ();
  char *nodes = xasprintf ("%s/node", d);
  mempolicy_plan p;
  char *m;

  mkdirs (d, "node/node0");
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_LOCAL\"}", &p);
  CHECK (m == NULL && p.set && p.mode == 4 && !p.any_node);
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_PREFERRED\"}", &p);
  CHECK (m == NULL && p.mode == 1);
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_PREFERRED\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}", &p);
  CHECK_STR (m, "config.json: .linux.memoryPolicy.flags: MPOL_PREFERRED without nodes takes no node flags");
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_WEIGHTED_INTERLEAVE\"}", &p);
  CHECK_STR (m, "config.json: .linux.memoryPolicy.nodes: MPOL_WEIGHTED_INTERLEAVE needs at least one node");
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_DEFAULT\", \"nodes\": \"0\"}", &p);
  CHECK_STR (m, "config.json: .linux.memoryPolicy.nodes: MPOL_DEFAULT takes no nodes");
  free (m);
  m = mempolicy_error (nodes, "{\"mode\": \"MPOL_PREFERRED_MANY\", \"nodes\": \"0\", "
                                       "\"flags\": [\"MPOL_F_NUMA_BALANCING\", \"MPOL_F_RELATIVE_NODES\"]}", &p);
  CHECK (m == NULL && p.mode == (5 | (1 << 13) | (1 << 14)));
  free (m);
  /* nothing set: no plan */
  CHECK (mempolicy_prepare (NULL, "/nonexistent", &p, NULL) == 0 && !p.set);
  free (nodes);
  rmtree (d);
}

UNIT_MAIN (T (test_mempolicy_nodes), T (test_mempolicy_modes_flags))
