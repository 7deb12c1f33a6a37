/* SPDX-License-Identifier: MIT */
/*
 * nvidia-ptx strategy: the sub-group context and the warp primitives every family shares.
 *
 * NVIDIA forms warps from 32 consecutive linear thread ids (x fastest), the same order in which
 * Intel sub-groups are runs of S consecutive linear local ids. With S in {8, 16, 32} every
 * sub-group is therefore one aligned segment of a warp, and shfl.sync's segment mask
 * (c = ((32 - S) << 8) | 0x1f) keeps every exchange inside it. No local memory, no barrier.
 *
 * Shuffles are legal in divergent control flow (the spec says only the work-items that reach a
 * shuffle take part), so every warp instruction uses the lanes active at that point
 * (activemask) as its member mask.
 */

typedef struct {
  uint lid;     /* linear local id */
  uint lsize;   /* work-items in this work-group */
  uint S;       /* sub-group size the kernel was compiled for: 8, 16 or 32 */
  uint sgid;    /* sub-group id */
  uint sglid;   /* sub-group local id */
  uint sgsize;  /* members of this sub-group (< S only for a partial last one) */
  uint base;    /* linear local id of this sub-group's member 0 */
  uint rounded; /* lsize rounded up to a multiple of S */
  uint lane0;   /* warp lane of member 0 */
  uint c;       /* shfl.sync's clamp/segment operand for S */
} __isg_ctx_t;

static inline __isg_ctx_t __isg_ctx_init(uint S) {
  __isg_ctx_t c;
  uint lx = (uint)get_local_size(0), ly = (uint)get_local_size(1);
  c.lid = (uint)get_local_id(0) + lx * ((uint)get_local_id(1) + ly * (uint)get_local_id(2));
  c.lsize = lx * ly * (uint)get_local_size(2);
  c.S = S;
  c.sgid = c.lid / S;
  c.sglid = c.lid & (S - 1u);
  c.base = c.lid - c.sglid;
  c.sgsize = min(S, c.lsize - c.base);
  c.rounded = (c.lsize + S - 1u) / S * S;
  c.lane0 = c.base & 31u;
  c.c = ((32u - S) << 8) | 0x1fu;
  return c;
}

/* Kept on one line: the rewriter inserts it into the user's kernel line. SLOT is the local
 * strategy's scratch need; warps exchange in registers. */
#define __ISG_KERNEL_PROLOGUE(S, SLOT) __isg_ctx_t __isg_ctx_v = __isg_ctx_init(S); __isg_ctx_t* __isg_ctx = &__isg_ctx_v;

static inline uint __isg_activemask(void) {
  uint m;
  __asm__ volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}

/* One 32-bit shuffle; `src` is a sub-group local id (taken modulo S by the segment mask). */
static inline uint __isg_shfl_idx(__isg_ctx_t* ctx, uint v, uint src) {
  uint r;
  __asm__ volatile("shfl.sync.idx.b32 %0, %1, %2, %3, %4;"
                   : "=r"(r) : "r"(v), "r"(src), "r"(ctx->c), "r"(__isg_activemask()));
  return r;
}

static inline uint __isg_shfl_bfly(__isg_ctx_t* ctx, uint v, uint lanemask) {
  uint r;
  __asm__ volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;"
                   : "=r"(r) : "r"(v), "r"(lanemask), "r"(ctx->c), "r"(__isg_activemask()));
  return r;
}

/* Lanes of this sub-group, as a bit mask over the warp. */
static inline uint __isg_segment_bits(__isg_ctx_t* ctx) {
  return (ctx->S == 32u ? 0xffffffffu : ((1u << ctx->S) - 1u)) << ctx->lane0;
}

static inline uint __isg_ballot(int predicate) {
  uint r;
  __asm__ volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }"
                   : "=r"(r) : "r"(predicate), "r"(__isg_activemask()));
  return r;
}

/*
 * Any gentype moves as its 32-bit words: a union gives the words whether T is a scalar, a vector
 * or a 3-vector, and the compiler keeps it in registers. Types narrower than a word travel in
 * the low bytes of one word. `prim` is one of the 32-bit primitives above.
 */
#define __ISG_WORDS(s, w) ((sizeof(s) * (w) + 3) / 4)
#define __ISG_XFER(T, s, w, dst, value, prim, arg)                                                 \
  {                                                                                                \
    union { T v; uint u[__ISG_WORDS(s, w)]; } __isg_in, __isg_out;                                 \
    __isg_in.v = (value);                                                                          \
    for (uint __isg_k = 0; __isg_k < __ISG_WORDS(s, w); ++__isg_k)                                 \
      __isg_out.u[__isg_k] = prim(ctx, __isg_in.u[__isg_k], (arg));                                \
    (dst) = __isg_out.v;                                                                           \
  }

/* NVIDIA's OpenCL C 3.0 declares no memory_scope_sub_group, which cl_intel_subgroups adds for
 * sub_group_barrier(flags, scope) and atomics. The work-group scope includes the sub-group, so
 * it is a correct (if stronger) stand-in. */
#if __OPENCL_C_VERSION__ >= 200 && !defined(memory_scope_sub_group)
#define memory_scope_sub_group memory_scope_work_group
#endif
