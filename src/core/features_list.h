/* Compiled-in features, shown by --version (and mirrored in `ocisbx features`). */
#ifndef OCISBX_FEATURES_LIST_H
#define OCISBX_FEATURES_LIST_H

#ifdef HAVE_SYSTEMD
#define OCISBX_BUILD_FEATURES "+SECCOMP +CAP +YAJL +SYSTEMD"
#else
#define OCISBX_BUILD_FEATURES "+SECCOMP +CAP +YAJL"
#endif

#endif
