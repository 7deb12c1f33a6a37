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
  __ISG_LAYOUT_FIELDS /* S: 8, 16 or 32 */
  uint lane0;   /* warp lane of member 0 */
  uint c;       /* shfl.sync's clamp/segment operand for S */
  uint members; /* warp lanes of this sub-group's members */
  uint converged; /* 1: the call is reached by its whole warp (the rewriter proved it) */
  __local uchar* wg; /* the scratch of a kernel that calls work-group collectives, else 0 */
  uint wgslot;       /* its bytes per work-item and half */
} __isg_ctx_t;

/* Lanes [lane0, lane0 + n) of a warp as a bit mask; n in 1..32. */
static inline uint __isg_lanes(uint n, uint lane0) {
  return n == 32u ? 0xffffffffu : ((1u << n) - 1u) << lane0;
}

/* The warp lane of the work-item of linear local id `lid`: a work-group starts a warp. The
 * packed copy of a kernel, whose CTA holds several work-groups, calls its own instead
 * (rewriter/src/ptx/launch_shape.h). */
static inline uint __isg_warp_lane(uint lid) { return lid & 31u; }

static inline __isg_ctx_t __isg_ctx_init(uint S, uint rx, uint ry, uint rz) {
  __isg_ctx_t c;
  __ISG_LAYOUT_INIT(c, S, rx, ry, rz)
  c.lane0 = __isg_warp_lane(c.base);
  c.c = ((32u - S) << 8) | 0x1fu;
  c.members = __isg_lanes(c.sgsize, c.lane0);
  c.converged = 0u;
  c.wg = 0;
  c.wgslot = 0u;
  return c;
}

/* Kept on one line: the rewriter inserts it into the user's kernel line. SLOT is the local
 * strategy's scratch need; warps exchange in registers. RX..RZ: see __ISG_LAYOUT_INIT. */
#define __ISG_KERNEL_PROLOGUE(S, SLOT, RX, RY, RZ) __isg_ctx_t __isg_ctx_v = __isg_ctx_init((S), (RX), (RY), (RZ)); __private __isg_ctx_t* __isg_ctx = &__isg_ctx_v; __ISG_CONVERGED_CONTEXT
/* A kernel that calls work-group collectives gets the hidden scratch for them (warps exchange in
 * registers otherwise): the context says where it is before the converged copy is taken. */
#define __ISG_KERNEL_PROLOGUE_WG(S, SLOT, RX, RY, RZ) __isg_ctx_t __isg_ctx_v = __isg_ctx_init((S), (RX), (RY), (RZ)); __isg_ctx_v.wg = (__local uchar*)__isg_scratch; __isg_ctx_v.wgslot = (SLOT); __private __isg_ctx_t* __isg_ctx = &__isg_ctx_v; __ISG_CONVERGED_CONTEXT

/* The work-group collectives' regions (common/90-work-group.cl): the scratch's two halves. */
static inline __local uchar* __isg_wg_region(__isg_ctx_t* ctx, uint which) {
  return ctx->wg + which * ctx->rounded * ctx->wgslot;
}

/* The calls the rewriter proved are reached by every work-item of a work-group whose warps are
 * all whole (a required work-group size of a multiple of 32, uniform work-groups) take
 * __isg_cctx, a copy of the context that says so (docs/design.md, "Member masks"). */
#define __ISG_CONVERGED_CONTEXT __isg_ctx_t __isg_cctx_v = __isg_ctx_v; __isg_cctx_v.converged = 1u; __private __isg_ctx_t* __isg_cctx = &__isg_cctx_v; (void)__isg_cctx;

static inline uint __isg_activemask(void) {
  uint m;
  __asm__ volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}

/* A builtin's member mask: the constant full mask where the whole warp is known to take part
 * (ctx->converged, a constant once the context is inlined: the branch folds away), else the
 * lanes active here. */
static inline uint __isg_member_mask(__isg_ctx_t* ctx) {
  if (ctx->converged) return 0xffffffffu;
  return __isg_activemask();
}

/*
 * 32-bit shuffles; `mask` is the member mask, always the lanes active at that point
 * (activemask, read once per builtin call). Measured on sm_90 (SASS): ptxas trusts an
 * activemask result (or the constant full mask in converged code) and emits the bare SHFL or
 * REDUX; any other mask, e.g. this sub-group's own lanes, which differ between the segments of a
 * warp, costs a convergence test per loop (MATCH.ANY, REDUX.OR) and, when the segments' masks
 * differ, a serialised WARPSYNC.COLLECTIVE path: 2x slower. activemask is exact for shuffles
 * (which only some members may reach: the spec allows it) and for collectives (every member
 * reaches them). Branching to use the full mask where it is known to be exact costs more than
 * it saves: the branch stops independent collectives from overlapping.
 * `src` is a sub-group local id (taken modulo S by the segment mask).
 */
#define __ISG_SHFL(mode, r, v, b, c, mask)                                                         \
  __asm__ volatile("shfl.sync." #mode ".b32 %0, %1, %2, %3, %4;"                                   \
                   : "=r"(r) : "r"(v), "r"(b), "r"(c), "r"(mask))
static inline uint __isg_shfl_idx(__isg_ctx_t* ctx, uint v, uint src, uint mask) {
  uint r;
  __ISG_SHFL(idx, r, v, src, ctx->c, mask);
  return r;
}
static inline uint __isg_shfl_bfly(__isg_ctx_t* ctx, uint v, uint lanemask, uint mask) {
  uint r;
  __ISG_SHFL(bfly, r, v, lanemask, ctx->c, mask);
  return r;
}
/* The first active member's `v` (common/80-block.cl: the pointer of block IO, which Intel's
 * runtime takes from there): two shuffles, legal in any flow. */
static inline ulong __isg_first_member_word(__isg_ctx_t* ctx, ulong v) {
  const uint mask = __isg_member_mask(ctx);
  const uint mine = mask & ctx->members;
  const uint src = (mine ? 31u - clz(mine & (0u - mine)) : ctx->lane0) - ctx->lane0;
  return (ulong)__isg_shfl_idx(ctx, (uint)v, src, mask) | ((ulong)__isg_shfl_idx(ctx, (uint)(v >> 32), src, mask) << 32);
}
/* Block IO's pointer: the first active member's on every call (no exchange through memory). */
#define __isg_block_pointer(ctx, v) __isg_first_member_word(ctx, v)
/* Lane sglid - delta of the same sub-group, or this lane's own value below member 0. */
static inline uint __isg_shfl_up(__isg_ctx_t* ctx, uint v, uint delta, uint mask) {
  uint r;
  __ISG_SHFL(up, r, v, delta, ctx->c & 0xff00u, mask);
  return r;
}

/* The predicates of the lanes in `mask`, as bits over the warp. */
static inline uint __isg_ballot_of(int predicate, uint mask) {
  uint r;
  __asm__ volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }"
                   : "=r"(r) : "r"(predicate), "r"(mask));
  return r;
}
/* The members' predicates as bits over the warp (a collective: every member takes part). */
static inline uint __isg_ballot(__isg_ctx_t* ctx, int predicate) {
  return __isg_ballot_of(predicate, __isg_member_mask(ctx)) & ctx->members;
}

/*
 * Any gentype moves as its 32-bit words: a union gives the words whether T is a scalar, a vector
 * or a 3-vector, and the compiler keeps it in registers. Types narrower than a word travel in
 * the low bytes of one word. `prim` is one of the 32-bit primitives above; the trailing
 * arguments are its own.
 */
#define __ISG_WORDS(s, w) ((sizeof(s) * (w) + 3) / 4)
#define __ISG_XFER(T, s, w, dst, value, prim, arg, mask)                                            \
  {                                                                                                \
    union { T v; uint u[__ISG_WORDS(s, w)]; } __isg_in, __isg_out;                                 \
    __isg_in.v = (value);                                                                          \
    for (uint __isg_k = 0; __isg_k < __ISG_WORDS(s, w); ++__isg_k)                                 \
      __isg_out.u[__isg_k] = prim(ctx, __isg_in.u[__isg_k], arg, mask);                          \
    (dst) = __isg_out.v;                                                                           \
  }

/* NVIDIA's OpenCL C 3.0 declares no memory_scope_sub_group, which cl_intel_subgroups adds for
 * sub_group_barrier(flags, scope) and atomics. The work-group scope includes the sub-group, so
 * it is a correct (if stronger) stand-in. */
#if __OPENCL_C_VERSION__ >= 200 && !defined(memory_scope_sub_group)
#define memory_scope_sub_group memory_scope_work_group
#endif

/* Whether any member of this sub-group holds `c`: a loop the rewriter made every member run
 * (rewriter/src/source/predication.h) goes on while one still takes it. */
static inline int __isg_flow_any(__isg_ctx_t* ctx, int c) { return __isg_ballot(ctx, c) != 0u; }
