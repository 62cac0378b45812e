/* A classic-BPF interpreter for seccomp filters, in user space: what would the kernel
   answer to one system call?  Used to know, before anything is created, whether the
   container's filter lets the runtime's own last execveat(2) through (dmz_stub.c).

   The instruction set is the one seccomp accepts (kernel/seccomp.c,
   seccomp_check_filter): loads of struct seccomp_data words, immediates and scratch
   memory, ALU, forward jumps, returns.  Anything else, or a load outside the data,
   answers SECCOMP_RET_KILL_PROCESS, the answer that allows nothing. */
#include <config.h>
#include "core/seccomp/seccomp.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

static uint32_t
alu (uint16_t op, uint32_t a, uint32_t v, int *bad)
{
  switch (op)
    {
    case BPF_ADD: return a + v;
    case BPF_SUB: return a - v;
    case BPF_MUL: return a * v;
    case BPF_DIV: return v ? a / v : (*bad = 1, 0);
    case BPF_MOD: return v ? a % v : (*bad = 1, 0);
    case BPF_OR: return a | v;
    case BPF_AND: return a & v;
    case BPF_XOR: return a ^ v;
    case BPF_LSH: return v < 32 ? a << v : 0;
    case BPF_RSH: return v < 32 ? a >> v : 0;
    case BPF_NEG: return -a;
    default: *bad = 1; return 0;
    }
}

uint32_t
seccomp_bpf_run (const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
  const unsigned char *data = (const unsigned char *) d;

  for (size_t pc = 0; pc < len; pc++)
    {
      const struct sock_filter *i = &f[pc];
      uint32_t v = BPF_SRC (i->code) == BPF_X ? x : i->k;
      int bad = 0;

      switch (BPF_CLASS (i->code))
        {
        case BPF_LD:
        case BPF_LDX:
          {
            uint32_t *dst = BPF_CLASS (i->code) == BPF_LD ? &a : &x;
            switch (BPF_MODE (i->code))
              {
              case BPF_ABS:
                if (BPF_CLASS (i->code) != BPF_LD || BPF_SIZE (i->code) != BPF_W || i->k % 4
                    || i->k > sizeof *d - 4)
                  return SECCOMP_RET_KILL_PROCESS;
                memcpy (&a, data + i->k, 4);
                break;
              case BPF_IMM:
                *dst = i->k;
                break;
              case BPF_MEM:
                if (i->k >= BPF_MEMWORDS)
                  return SECCOMP_RET_KILL_PROCESS;
                *dst = mem[i->k];
                break;
              case BPF_LEN:
                *dst = sizeof *d;
                break;
              default:
                return SECCOMP_RET_KILL_PROCESS;
              }
            break;
          }
        case BPF_ST:
        case BPF_STX:
          if (i->k >= BPF_MEMWORDS)
            return SECCOMP_RET_KILL_PROCESS;
          mem[i->k] = BPF_CLASS (i->code) == BPF_ST ? a : x;
          break;
        case BPF_ALU:
          a = alu (BPF_OP (i->code), a, v, &bad);
          if (bad)
            return SECCOMP_RET_KILL_PROCESS;
          break;
        case BPF_JMP:
          {
            int taken;
            switch (BPF_OP (i->code))
              {
              case BPF_JA:
                if (i->k >= len - pc - 1)
                  return SECCOMP_RET_KILL_PROCESS;
                pc += i->k;
                continue;
              case BPF_JEQ: taken = a == v; break;
              case BPF_JGT: taken = a > v; break;
              case BPF_JGE: taken = a >= v; break;
              case BPF_JSET: taken = (a & v) != 0; break;
              default: return SECCOMP_RET_KILL_PROCESS;
              }
            pc += taken ? i->jt : i->jf;
            break;
          }
        case BPF_RET:
          if (BPF_RVAL (i->code) == BPF_K)
            return i->k;
          if (BPF_RVAL (i->code) == BPF_A)
            return a;
          return SECCOMP_RET_KILL_PROCESS;
        case BPF_MISC:
          if (BPF_MISCOP (i->code) == BPF_TAX)
            x = a;
          else
            a = x;
          break;
        default:
          return SECCOMP_RET_KILL_PROCESS;
        }
    }
  return SECCOMP_RET_KILL_PROCESS; /* ran off the end: the kernel refuses such programs */
}

bool
seccomp_bpf_allows (uint32_t ret)
{
  uint32_t action = ret & SECCOMP_RET_ACTION_FULL;
  return action == SECCOMP_RET_ALLOW || action == SECCOMP_RET_LOG;
}

bool
seccomp_prog_allows (const seccomp_prog *p, const struct seccomp_data *d)
{
  if (p == NULL)
    return true;
  return seccomp_bpf_allows (seccomp_bpf_run (seccomp_prog_insns (p), seccomp_prog_len (p), d));
}
