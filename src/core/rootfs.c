/* STUB until the rootfs work lands. */
#include <config.h>
#include "rootfs.h"

int
rootfs_setup (const rootfs_ctx *ctx, ocisbx_err **err)
{
  return err_set (err, 0, "rootfs: not implemented");
}
int
rootfs_pivot (const rootfs_ctx *ctx, ocisbx_err **err)
{
  return err_set (err, 0, "rootfs: not implemented");
}
int
rootfs_finalize (const rootfs_ctx *ctx, ocisbx_err **err)
{
  return 0;
}
