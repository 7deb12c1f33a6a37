/* SPDX-License-Identifier: MIT */
/*
 * khr strategy: the Intel builtins on the driver's own sub-groups, through cl_khr_subgroups,
 * cl_khr_subgroup_shuffle and cl_khr_subgroup_shuffle_relative (and
 * cl_khr_subgroup_clustered_reduce / cl_khr_subgroup_extended_types where the driver has them).
 *
 * Partition. Intel sub-groups are runs of S consecutive linear local ids. The drivers this
 * strategy targets form their native sub-groups as runs of N consecutive linear local ids too
 * (an assumption the strategy rests on). The rewriter only picks khr when S divides N (both
 * powers of two, so S <= N; otherwise the whole program uses the local strategy), so every
 * Intel sub-group is one aligned run of S lanes of a native sub-group: member j of the Intel
 * sub-group that holds native lane l is native lane (l & ~(S-1)) | j. ids, sizes and counts come
 * from the linear local id exactly as on every other strategy (and as the layer answers the
 * host queries); exchanges address native lanes.
 *
 * When S equals the native size the Intel sub-group is the native one and the native
 * collectives (reduce, scan, all/any) are used directly; with S < N they would mix partitions,
 * so reductions become clustered reductions (or shuffles) and scans shuffles.
 *
 * Divergence. Native builtins are collective over the native sub-group. With S < N, a builtin
 * therefore has to be reached by every Intel sub-group of a native sub-group (control flow
 * uniform across N consecutive work-items), not only by its own S members.
 *
 * Every native builtin is named once, below, through a __isg_k_* macro, so that an overlay (the
 * test double, builtins-cl/khr-test/, ISG_KHR_TEST_NATIVE_SIZE) can stand in for the driver.
 */

/* The native builtins and their state come from the driver, unless an overlay library folder
 * loaded before this file provides them (isg/strategies.def: the khr test double,
 * builtins-cl/khr-test/, defines __ISG_KHR_NATIVE_OVERLAY and every hook below). */
#ifndef __ISG_KHR_NATIVE_OVERLAY
/* The sub-group basics (ids, sizes, broadcast, reduce, scan, barrier) come from cl_khr_subgroups,
 * the OpenCL C 3.0 feature, or cl_intel_subgroups, which declares the same functions on Intel's
 * drivers in every OpenCL C version (ISG_STRATEGY=khr there runs on a real khr driver). */
#if !defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups) && !defined(cl_intel_subgroups)
#error "the khr sub-group strategy needs cl_khr_subgroups, or OpenCL C 3.0 with __opencl_c_subgroups (build with -cl-std=CL3.0, or set ISG_STRATEGY=local)"
#endif
/* Only cl_khr_subgroups has a pragma (Clang warns about one for the others). */
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#ifdef cl_khr_subgroup_clustered_reduce
#define __ISG_KHR_CLUSTERED 1
#endif
#ifdef cl_khr_subgroup_extended_types
#define __ISG_KHR_EXTENDED 1
#endif
/* Hooks an overlay replaces: state the context carries for the native builtins, the context
 * initialiser's extra parameters and the prologue's arguments for them, and their
 * initialisation. An overlay may also define the native size as a constant,
 * __ISG_KHR_NATIVE_SIZE (the driver's is known only at run time). */
#define __ISG_KHR_NATIVE_FIELD
#define __ISG_KHR_NATIVE_PARAMS
#define __ISG_KHR_NATIVE_ARGS(SLOT)
#define __ISG_KHR_NATIVE_INIT(c, S)
/* The work-group collectives' regions (common/90-work-group.cl): the two halves of the scratch
 * the kernel gets for them. An overlay whose native builtins exchange through the scratch
 * gives its own (the half its next exchange writes, and the other). */
#define __ISG_KHR_WG_REGION(ctx, which) ((ctx)->wg + (which) * (ctx)->rounded * (ctx)->wgslot)
#endif

typedef struct {
  __ISG_LAYOUT_FIELDS
  uint lane0;   /* native sub-group local id of member 0 */
  uint whole;   /* 1: this sub-group is a whole native sub-group (S == native size) */
  __local uchar* wg; /* the scratch of a kernel that calls work-group collectives, else 0 */
  uint wgslot;       /* its bytes per work-item and half */
  __ISG_KHR_NATIVE_FIELD
} __isg_ctx_t;

/* The library's functions. Helpers without an exchange stay ordinary calls: a compiler that
 * handles barriers by splitting the kernel at each one (PoCL runs the test double that way)
 * pays for every variable an inlined function brings into the kernel. */
#define __ISG_KHR_FN static inline __attribute__((overloadable))

/* ---- the native builtins ----------------------------------------------------------------- */
#ifndef __ISG_KHR_NATIVE_OVERLAY
#define __isg_k_local_id(ctx) get_sub_group_local_id()
#define __isg_k_max_size(ctx) get_max_sub_group_size()
#define __isg_k_shuffle(ctx, x, i) sub_group_shuffle(x, i)
#define __isg_k_shuffle_xor(ctx, x, m) sub_group_shuffle_xor(x, m)
#define __isg_k_shuffle_up(ctx, x, d) sub_group_shuffle_up(x, d)
#define __isg_k_shuffle_down(ctx, x, d) sub_group_shuffle_down(x, d)
#define __isg_k_all(ctx, p) sub_group_all(p)
#define __isg_k_any(ctx, p) sub_group_any(p)
#define __isg_k_reduce_add(ctx, x) sub_group_reduce_add(x)
#define __isg_k_reduce_min(ctx, x) sub_group_reduce_min(x)
#define __isg_k_reduce_max(ctx, x) sub_group_reduce_max(x)
#define __isg_k_scan_inclusive_add(ctx, x) sub_group_scan_inclusive_add(x)
#define __isg_k_scan_inclusive_min(ctx, x) sub_group_scan_inclusive_min(x)
#define __isg_k_scan_inclusive_max(ctx, x) sub_group_scan_inclusive_max(x)
#define __isg_k_scan_exclusive_add(ctx, x) sub_group_scan_exclusive_add(x)
#define __isg_k_scan_exclusive_min(ctx, x) sub_group_scan_exclusive_min(x)
#define __isg_k_scan_exclusive_max(ctx, x) sub_group_scan_exclusive_max(x)
#define __isg_k_clustered_reduce_add(ctx, x, cs) sub_group_clustered_reduce_add(x, cs)
#define __isg_k_clustered_reduce_min(ctx, x, cs) sub_group_clustered_reduce_min(x, cs)
#define __isg_k_clustered_reduce_max(ctx, x, cs) sub_group_clustered_reduce_max(x, cs)
#define __isg_k_barrier(ctx, flags) sub_group_barrier(flags)
#define __isg_k_barrier_scope(ctx, flags, scope) sub_group_barrier(flags, scope)
/* cl_khr_subgroup_ballot's, named only under __ISG_KHR_FIRST_ACTIVE (never on an overlay). */
#define __isg_k_size(ctx) get_sub_group_size()
#define __isg_k_ballot(ctx, p) sub_group_ballot(p)
#define __isg_k_ballot_find_lsb(ctx, m) sub_group_ballot_find_lsb(m)
#define __isg_k_broadcast_first(ctx, x) sub_group_broadcast_first(x)
#define __isg_k_nonuniform_broadcast(ctx, x, i) sub_group_non_uniform_broadcast(x, i)
#endif

/* ---- the context ------------------------------------------------------------------------- */
__ISG_KHR_FN __isg_ctx_t __isg_ctx_init(uint S, uint rx, uint ry, uint rz __ISG_KHR_NATIVE_PARAMS) {
  __isg_ctx_t c;
  __ISG_KHR_NATIVE_INIT(c, S)
  __ISG_LAYOUT_INIT(c, S, rx, ry, rz)
  c.lane0 = __isg_k_local_id(&c) & ~(S - 1u);
  /* The native size is read per kernel: drivers may pick it per kernel (wave32/wave64, SIMD
   * width), and the partition only needs S to divide it. */
  c.whole = __isg_k_max_size(&c) == S;
  c.wg = 0;
  c.wgslot = 0u;
  return c;
}

/* Kept on one line: the rewriter inserts it into the user's kernel line. SLOT is the scratch an
 * overlay's native builtins may exchange through; the driver's need none. */
#define __ISG_KERNEL_PROLOGUE(S, SLOT, RX, RY, RZ) __isg_ctx_t __isg_ctx_v = __isg_ctx_init((S), (RX), (RY), (RZ) __ISG_KHR_NATIVE_ARGS(SLOT)); __private __isg_ctx_t* __isg_ctx = &__isg_ctx_v;
/* A kernel that calls work-group collectives gets the hidden scratch for them (the driver's
 * sub-groups need none otherwise). */
#define __ISG_KERNEL_PROLOGUE_WG(S, SLOT, RX, RY, RZ) __ISG_KERNEL_PROLOGUE(S, SLOT, RX, RY, RZ) __isg_ctx_v.wg = (__local uchar*)__isg_scratch; __isg_ctx_v.wgslot = (SLOT);

static inline __local uchar* __isg_wg_region(__isg_ctx_t* ctx, uint which) {
  return __ISG_KHR_WG_REGION(ctx, which);
}

/*
 * S, and whether the sub-group is the whole native one, as constants where they are: the
 * rewriter defines __ISG_KHR_ONLY_S when every kernel of the program that calls a builtin has the
 * same S (the common case), and the test double knows N. Branches on them around native
 * builtins then vanish at compile time, which matters to compilers that replicate the code after
 * a conditional barrier (PoCL does, for the test double's exchanges) and gives the clustered
 * reduction its constant cluster size directly.
 */
#ifdef __ISG_KHR_ONLY_S
#define __ISG_KHR_S(ctx) (__ISG_KHR_ONLY_S)
#else
#define __ISG_KHR_S(ctx) ((ctx)->S)
#endif
#if defined(__ISG_KHR_ONLY_S) && defined(__ISG_KHR_NATIVE_SIZE)
#define __ISG_KHR_WHOLE(ctx) (__ISG_KHR_ONLY_S == __ISG_KHR_NATIVE_SIZE)
#else
#define __ISG_KHR_WHOLE(ctx) ((ctx)->whole)
#endif

/* Native lane of member j of this sub-group: j is taken modulo S (an out-of-range index, which
 * the spec leaves undefined, stays in the sub-group) and clamped to the real members, so no
 * exchange ever names a lane past the end of a partial native sub-group. */
__ISG_KHR_FN uint __isg_lane(__isg_ctx_t* ctx, uint j) {
  return ctx->lane0 + min(j & (ctx->S - 1u), ctx->sgsize - 1u);
}

/* Block IO's pointer as the member passed it: the rewriter asks for the first member's
 * (__ISG_L0_<name>) where the members may pass different ones. */
#define __isg_block_pointer(ctx, v) (v)
#ifdef __ISG_KHR_FIRST_ACTIVE
/* The bits of native lanes [j, j + S) in word w of a ballot. */
__ISG_KHR_FN uint __isg_run_bits(uint w, uint j, uint S) {
  const uint lo = max(j, 32u * w), hi = min(j + S, 32u * w + 32u);
  if (lo >= hi) return 0u;
  const uint n = hi - lo;
  return (n == 32u ? 0xffffffffu : (1u << n) - 1u) << (lo - 32u * w);
}
/* The first active member's `v`, in any flow (the rewriter defines __ISG_KHR_FIRST_ACTIVE where
 * the driver has cl_khr_subgroup_ballot, whose functions need not be reached by every member):
 * where every member reaches the call, member 0's. With S < N each Intel sub-group of the native
 * one finds its first active lane in the ballot, which every active lane sees alike, so each
 * broadcast's lane is one every active lane names alike, as sub_group_non_uniform_broadcast asks. */
__ISG_KHR_FN ulong __isg_first_member_word(__isg_ctx_t* ctx, ulong v) {
  if (__ISG_KHR_WHOLE(ctx)) return __isg_k_broadcast_first(ctx, v);
  const uint S = __ISG_KHR_S(ctx), n = __isg_k_size(ctx);
  const uint4 b = __isg_k_ballot(ctx, 1);
  ulong r = v;
  for (uint j = 0; j < n; j += S) {
    const uint4 m = b & (uint4)(__isg_run_bits(0u, j, S), __isg_run_bits(1u, j, S), __isg_run_bits(2u, j, S),
                                __isg_run_bits(3u, j, S));
    if ((m.x | m.y | m.z | m.w) == 0u) continue;
    const ulong x = __isg_k_nonuniform_broadcast(ctx, v, __isg_k_ballot_find_lsb(ctx, m));
    if (j == ctx->lane0) r = x;
  }
  return r;
}
#else
/* Member 0's `v`: khr's shuffles (and the test double's exchanges) need every member, so the
 * rewriter asks for it only where every member reaches the call. */
__ISG_KHR_FN ulong __isg_first_member_word(__isg_ctx_t* ctx, ulong v) {
  const uint lo = __isg_k_shuffle(ctx, (uint)v, ctx->lane0), hi = __isg_k_shuffle(ctx, (uint)(v >> 32), ctx->lane0);
  return (ulong)lo | ((ulong)hi << 32);
}
#endif

/* ---- types -------------------------------------------------------------------------------- */
/* Shuffles move any scalar; vectors go component by component through a union, which gives
 * the components of every width (3-component vectors included) without naming them. */
#define __ISG_KHR_LANES_1 1
#define __ISG_KHR_LANES_2 2
#define __ISG_KHR_LANES_3 4
#define __ISG_KHR_LANES_4 4
#define __ISG_KHR_LANES_8 8
#define __ISG_KHR_LANES_16 16
#define __ISG_KHR_UNION(T, s, w) union { T v; s c[__ISG_KHR_LANES_##w]; }

/*
 * dst = EXPR for each component of a value of type T (scalar s, width w): EXPR names the
 * component of `src` as `a` (and of `src2` as `b`). Scalars go straight through; vectors go
 * through a union, one component per loop trip (a loop rather than w copies keeps the code the
 * driver compiles small). EXPR must call every native builtin it names unconditionally.
 */
#define __ISG_KHR_MAP(T, s, w, dst, src, src2, EXPR) __ISG_KHR_MAP_##w(T, s, w, dst, src, src2, EXPR)
#define __ISG_KHR_MAP_1(T, s, w, dst, src, src2, EXPR)                                             \
  {                                                                                                \
    s a = (src), b = (src2);                                                                       \
    (void)b;                                                                                       \
    (dst) = (EXPR);                                                                                \
  }
#define __ISG_KHR_MAP_V(T, s, w, dst, src, src2, EXPR)                                             \
  {                                                                                                \
    __ISG_KHR_UNION(T, s, w) __isg_a, __isg_b, __isg_r;                                            \
    __isg_a.v = (src);                                                                             \
    __isg_b.v = (src2);                                                                            \
    __isg_r.v = __isg_a.v;                                                                         \
    for (uint __isg_k = 0; __isg_k < (w); ++__isg_k) {                                             \
      s a = __isg_a.c[__isg_k], b = __isg_b.c[__isg_k];                                            \
      (void)b;                                                                                     \
      __isg_r.c[__isg_k] = (EXPR);                                                                 \
    }                                                                                              \
    (dst) = __isg_r.v;                                                                             \
  }
#define __ISG_KHR_MAP_2 __ISG_KHR_MAP_V
#define __ISG_KHR_MAP_3 __ISG_KHR_MAP_V
#define __ISG_KHR_MAP_4 __ISG_KHR_MAP_V
#define __ISG_KHR_MAP_8 __ISG_KHR_MAP_V
#define __ISG_KHR_MAP_16 __ISG_KHR_MAP_V

/* Collectives (broadcast aside) exist for 32/64-bit types and half in cl_khr_subgroups; 8- and
 * 16-bit integers need cl_khr_subgroup_extended_types, and are widened to 32 bits without it
 * (add wraps the same way after truncation; min/max are exact). */
#define __ISG_KHR_ARITH_int int
#define __ISG_KHR_ARITH_uint uint
#define __ISG_KHR_ARITH_long long
#define __ISG_KHR_ARITH_ulong ulong
#define __ISG_KHR_ARITH_float float
#define __ISG_KHR_ARITH_half half
#define __ISG_KHR_ARITH_double double
#ifdef __ISG_KHR_EXTENDED
#define __ISG_KHR_ARITH_char char
#define __ISG_KHR_ARITH_uchar uchar
#define __ISG_KHR_ARITH_short short
#define __ISG_KHR_ARITH_ushort ushort
#else
#define __ISG_KHR_ARITH_char int
#define __ISG_KHR_ARITH_uchar uint
#define __ISG_KHR_ARITH_short int
#define __ISG_KHR_ARITH_ushort uint
#endif

#if defined(ISG_NEED_reduce) || defined(ISG_NEED_scan) || defined(ISG_NEED_vote)

/*
 * An operation travels between these macros as its macro name, __ISG_OP_<op> (or a native
 * builtin's __isg_k_*_<op>), pasted where it is first named: a bare `min` passed on as a macro
 * argument would be macro-expanded first, and drivers' headers define min and max as macros.
 *
 * Inclusive scan of W over this sub-group when it is part of a native sub-group: Hillis-Steele
 * over shuffle_up. Every read goes to a lower lane of the same partition (sglid >= o), and lower
 * lanes always exist, so a partial sub-group needs no special case.
 */
#define __ISG_KHR_PARTITION_SCAN(W, OPM, x)                                                        \
  for (uint __isg_o = 1u; __isg_o < ctx->S; __isg_o <<= 1) {                                       \
    W __isg_y = __isg_k_shuffle_up(ctx, x, __isg_o);                                               \
    if (ctx->sglid >= __isg_o) x = (W)OPM(x, __isg_y);                                             \
  }

/* Clustered reduction over this sub-group's S lanes; the cluster size must be a constant. */
#define __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, n)                                                    \
  case n:                                                                                          \
    return CLUSTERED(ctx, x, n);

/*
 * Reduction of one W value over this sub-group: the native reduction when the sub-group is the
 * native one; else a clustered reduction over S lanes; else the partition scan, whose last real
 * member holds the result, broadcast with one shuffle.
 */
#ifdef __ISG_KHR_CLUSTERED
#define __ISG_KHR_PARTITION_REDUCE(W, OPM, CLUSTERED)                                              \
  switch (__ISG_KHR_S(ctx)) {                                                                      \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 2u)                                                       \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 4u)                                                       \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 8u)                                                       \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 16u)                                                      \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 32u)                                                      \
    __ISG_KHR_CLUSTER_CASE(CLUSTERED, x, 64u)                                                      \
    default:                                                                                       \
      return x; /* S == 1 */                                                                       \
  }
#else
#define __ISG_KHR_PARTITION_REDUCE(W, OPM, CLUSTERED)                                              \
  __ISG_KHR_PARTITION_SCAN(W, OPM, x)                                                              \
  return __isg_k_shuffle(ctx, x, ctx->lane0 + ctx->sgsize - 1u);
#endif

/*
 * __isg_khr_reduce_<op>, __isg_khr_scan_inclusive_<op>, __isg_khr_scan_exclusive_<op> over this
 * sub-group, for every type the native collectives accept (the khr types, not the table's: rows
 * added to builtins.def later find theirs here). The exclusive scan's value at member 0 is left to
 * the caller, which knows the identity of the type it was widened from.
 */
#define __ISG_KHR_COLLECTIVE_FNS(W, op)                                                            \
  __ISG_KHR_FN W __isg_khr_reduce_##op(__isg_ctx_t* ctx, W x) {                                    \
    if (__ISG_KHR_WHOLE(ctx)) return __isg_k_reduce_##op(ctx, x);                                  \
    __ISG_KHR_PARTITION_REDUCE(W, __ISG_OP_##op, __isg_k_clustered_reduce_##op)                    \
  }                                                                                                \
  __ISG_KHR_FN W __isg_khr_scan_inclusive_##op(__isg_ctx_t* ctx, W x) {                            \
    if (__ISG_KHR_WHOLE(ctx)) return __isg_k_scan_inclusive_##op(ctx, x);                          \
    __ISG_KHR_PARTITION_SCAN(W, __ISG_OP_##op, x)                                                  \
    return x;                                                                                      \
  }                                                                                                \
  __ISG_KHR_FN W __isg_khr_scan_exclusive_##op(__isg_ctx_t* ctx, W x) {                            \
    if (__ISG_KHR_WHOLE(ctx)) return __isg_k_scan_exclusive_##op(ctx, x);                          \
    __ISG_KHR_PARTITION_SCAN(W, __ISG_OP_##op, x)                                                  \
    return __isg_k_shuffle_up(ctx, x, 1u);                                                         \
  }
#define __ISG_KHR_COLLECTIVES(W, req)                                                              \
  ISG_REQ_##req(__ISG_KHR_COLLECTIVE_FNS(W, add) __ISG_KHR_COLLECTIVE_FNS(W, min)                  \
                __ISG_KHR_COLLECTIVE_FNS(W, max))
__ISG_KHR_COLLECTIVES(int, none)
__ISG_KHR_COLLECTIVES(uint, none)
__ISG_KHR_COLLECTIVES(long, none)
__ISG_KHR_COLLECTIVES(ulong, none)
__ISG_KHR_COLLECTIVES(float, none)
__ISG_KHR_COLLECTIVES(half, fp16)
__ISG_KHR_COLLECTIVES(double, fp64)
#ifdef __ISG_KHR_EXTENDED
__ISG_KHR_COLLECTIVES(char, none)
__ISG_KHR_COLLECTIVES(uchar, none)
__ISG_KHR_COLLECTIVES(short, none)
__ISG_KHR_COLLECTIVES(ushort, none)
#endif
#endif

/* Whether any work-item of the native sub-group holds `c`: a loop the rewriter made every
 * work-item run (rewriter/src/source/predication.h) goes on while one still takes it; the partitions of
 * a native sub-group share its exchanges. */
__ISG_KHR_FN int __isg_flow_any(__isg_ctx_t* ctx, int c) { return __isg_k_any(ctx, c); }
