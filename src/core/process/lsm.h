/* Linux security modules: the exec labels of process.apparmorProfile and
   process.selinuxLabel. */
#ifndef OCISBX_LSM_H
#define OCISBX_LSM_H

#include <stdbool.h>

#include "core/error.h"

bool lsm_apparmor_enabled (void);
bool lsm_selinux_enabled (void);

/* Parent, before anything is created: an AppArmor profile on a host without
   AppArmor is an error, and so is an SELinux process label or MOUNT_LABEL
   (linux.mountLabel; NULL for exec) without SELinux, as runc refuses them. */
int lsm_validate (const char *apparmor_profile, const char *selinux_label, const char *mount_label,
                  ocisbx_err **err);

/* Child, just before execve (both may be NULL): the labels the next execve takes,
   through /proc/self/attr/{apparmor/,}exec. */
int lsm_apply_exec_label (const char *apparmor_profile, const char *selinux_label, ocisbx_err **err);

#endif
