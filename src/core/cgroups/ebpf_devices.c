/* cgroup v2 device filter: a BPF_PROG_TYPE_CGROUP_DEVICE program assembled by
 * hand (no libbpf) and attached with the bpf() syscall.
 *
 * The program sees struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; }
 * with access_type = (access << 16) | type, and returns 1 to allow, 0 to deny.
 * Rules are checked from the last to the first; the first that matches decides.
 * A rule for all devices of type "a" resets the default and hides the rules before it.
 * An allow rule matches when the requested access is a subset of its access; a deny
 * rule when the requested access overlaps its access.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#define INSN(c, d, s, o, i)                                                                        \
  ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LDX_W(d, s, o) INSN (BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define ALU32_IMM(op, d, i) INSN (BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define MOV32_REG(d, s) INSN (BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i) INSN (BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define JMP_IMM(op, d, i, o) INSN (BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define EXIT_INSN() INSN (BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

enum
{
  R0 = 0,
  R1,
  R2, /* device type */
  R3, /* requested access */
  R4, /* major */
  R5, /* minor */
};

int
cg_ebpf_build (const cg_dev_rule *rules, size_t n, struct bpf_insn **out, size_t *len)
{
  struct bpf_insn *p = xmalloc0 ((8 + n * 12) * sizeof *p);
  size_t k = 0;
  bool dflt;
  size_t start = cg_dev_last_reset (rules, n, &dflt);

  p[k++] = LDX_W (R2, R1, 0);
  p[k++] = ALU32_IMM (BPF_AND, R2, 0xffff);
  p[k++] = LDX_W (R3, R1, 0);
  p[k++] = ALU32_IMM (BPF_RSH, R3, 16);
  p[k++] = LDX_W (R4, R1, 4);
  p[k++] = LDX_W (R5, R1, 8);

  for (size_t i = n; i-- > start;)
    {
      const cg_dev_rule *r = &rules[i];
      struct bpf_insn blk[12];
      size_t b = 0, jumps[8], nj = 0;

      if (r->access == 0 || cg_dev_is_reset (r))
        continue;
      if (r->type != 'a')
        {
          jumps[nj++] = b;
          blk[b++] = JMP_IMM (BPF_JNE, R2, r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, 0);
        }
      if ((r->access & CG_DEV_ALL) != CG_DEV_ALL)
        {
          blk[b++] = MOV32_REG (R1, R3);
          if (r->allow)
            {
              /* requested & ~allowed != 0: not a subset */
              blk[b++] = ALU32_IMM (BPF_AND, R1, ~r->access & CG_DEV_ALL);
              jumps[nj++] = b;
              blk[b++] = JMP_IMM (BPF_JNE, R1, 0, 0);
            }
          else
            {
              /* requested & denied == 0: no overlap */
              blk[b++] = ALU32_IMM (BPF_AND, R1, r->access);
              jumps[nj++] = b;
              blk[b++] = JMP_IMM (BPF_JEQ, R1, 0, 0);
            }
        }
      if (r->major >= 0)
        {
          jumps[nj++] = b;
          blk[b++] = JMP_IMM (BPF_JNE, R4, (int32_t) r->major, 0);
        }
      if (r->minor >= 0)
        {
          jumps[nj++] = b;
          blk[b++] = JMP_IMM (BPF_JNE, R5, (int32_t) r->minor, 0);
        }
      blk[b++] = MOV64_IMM (R0, r->allow ? 1 : 0);
      blk[b++] = EXIT_INSN ();
      for (size_t j = 0; j < nj; j++)
        blk[jumps[j]].off = (int16_t) (b - jumps[j] - 1);
      memcpy (p + k, blk, b * sizeof *blk);
      k += b;
    }
  p[k++] = MOV64_IMM (R0, dflt ? 1 : 0);
  p[k++] = EXIT_INSN ();
  *out = p;
  *len = k;
  return 0;
}

static long
sys_bpf (int cmd, union bpf_attr *a)
{
  return syscall (SYS_bpf, cmd, a, sizeof *a);
}

static int
load_prog (const struct bpf_insn *insns, size_t n, ocisbx_err **err)
{
  union bpf_attr a;
  int fd;
  static const char license[] = "Apache-2.0";

  memset (&a, 0, sizeof a);
  a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  a.insns = (uintptr_t) insns;
  a.insn_cnt = n;
  a.license = (uintptr_t) license;
  fd = sys_bpf (BPF_PROG_LOAD, &a);
  if (fd >= 0)
    return fd;
  {
    int saved = errno;
    cleanup_free char *log = xmalloc0 (16384);
    a.log_buf = (uintptr_t) log;
    a.log_size = 16384;
    a.log_level = 1;
    fd = sys_bpf (BPF_PROG_LOAD, &a);
    if (fd >= 0)
      return fd;
    log[strcspn (log, "\n")] = '\0';
    return err_set (err, saved, "bpf: load device filter (%zu insns)%s%s", n, log[0] ? ": " : "", log);
  }
}

int
cg_ebpf_attach (const char *dir, const cg_dev_rule *rules, size_t n, ocisbx_err **err)
{
  cleanup_free struct bpf_insn *insns = NULL;
  cleanup_close int dfd = -1;
  cleanup_close int prog = -1;
  uint32_t ids[64];
  uint32_t nids = 0;
  size_t ninsns;
  union bpf_attr a;

  cg_ebpf_build (rules, n, &insns, &ninsns);
  dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return err_set (err, errno, "open `%s`", dir);
  prog = load_prog (insns, ninsns, err);
  if (prog < 0)
    return -1;

  memset (&a, 0, sizeof a);
  a.query.target_fd = dfd;
  a.query.attach_type = BPF_CGROUP_DEVICE;
  a.query.prog_ids = (uintptr_t) ids;
  a.query.prog_cnt = sizeof ids / sizeof ids[0];
  if (sys_bpf (BPF_PROG_QUERY, &a) == 0)
    nids = a.query.prog_cnt;

  memset (&a, 0, sizeof a);
  a.target_fd = dfd;
  a.attach_bpf_fd = prog;
  a.attach_type = BPF_CGROUP_DEVICE;
  a.attach_flags = BPF_F_ALLOW_MULTI;
  if (sys_bpf (BPF_PROG_ATTACH, &a) < 0)
    return err_set (err, errno, "bpf: attach device filter to `%s`", dir);

  /* Replace what was there before (an update). */
  for (uint32_t i = 0; i < nids; i++)
    {
      cleanup_close int old = -1;
      memset (&a, 0, sizeof a);
      a.prog_id = ids[i];
      old = sys_bpf (BPF_PROG_GET_FD_BY_ID, &a);
      if (old < 0)
        continue;
      memset (&a, 0, sizeof a);
      a.target_fd = dfd;
      a.attach_bpf_fd = old;
      a.attach_type = BPF_CGROUP_DEVICE;
      if (sys_bpf (BPF_PROG_DETACH, &a) < 0)
        return err_set (err, errno, "bpf: detach the previous device filter of `%s`", dir);
    }
  return 0;
}
