/* SPDX-License-Identifier: MIT */
/*
 * OpenCL C 2.0's work-group collective functions (builtins.def, work_group) for drivers that
 * lack them, on every strategy alike: values meet in the hidden local scratch across
 * work-group barriers. The spec has every work-item of the work-group reach each call, in the
 * same order, which is all the barriers need.
 *
 * Two regions, __isg_wg_region(ctx, 0) and (ctx, 1), each at least one 8-byte value per
 * work-item (the strategy's context says where: on local and the khr test double the half the
 * next sub-group exchange writes and the other half, elsewhere the two halves of the scratch
 * the kernel gets for these calls). A reduction or scan is one pattern:
 *   1. every work-item writes its value to region 0; barrier;
 *   2. work-items read region 0 and write one partial per chunk of k consecutive work-items
 *      to region 1; barrier;
 *   3. every work-item reads region 1 only.
 * No third barrier: the next call (or sub-group exchange) writes region 0 at once, which nobody
 * reads after the second barrier, and region 1 only after a barrier every reader of this call's
 * region 1 must reach first. A broadcast reads region 0 after its barrier, so it ends with one.
 * k is the least power of two with k * k >= the work-group's size, so a work-item folds at most
 * about 2 * sqrt(size) values (32 + 32 for 1,024 work-items).
 */

/* A row of the family: a vote has no gentype (its definition is the row), the others one
 * definition per type of the row's set (the rewriter writes __ISG_DEF_<name>:
 * detail::collectiveRows). */
#define __ISG_WG_ROW_I_I(name, typeset) __ISG_DEF_##name
#define __ISG_WG_ROW_T_T(name, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)
#define __ISG_WG_ROW_T_TZ(name, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#ifdef ISG_NEED_work_group

static inline void __isg_wg_sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }

static inline uint __isg_wg_chunk(uint n) {
  uint k = 1u;
  while (k * k < n) k <<= 1;
  return k;
}

/* Steps 1-3 for a reduction: r is the fold of every work-item's x, in local id order. OP and
 * the function's name come pasted (an argument is macro-expanded before it gets here). */
#define __ISG_WG_REDUCE_DEF(FN, OP, T)                                                             \
  __ISG_OVL T FN(__isg_ctx_t* ctx, T x) {                                                          \
    __local T* a = (__local T*)__isg_wg_region(ctx, 0u);                                           \
    __local T* b = (__local T*)__isg_wg_region(ctx, 1u);                                           \
    const uint n = ctx->lsize, k = __isg_wg_chunk(n), first = ctx->lid * k;                        \
    a[ctx->lid] = x;                                                                               \
    __isg_wg_sync();                                                                               \
    if (first < n) {                                                                               \
      const uint end = min(first + k, n);                                                          \
      T r = a[first];                                                                              \
      for (uint i = first + 1u; i < end; ++i) r = (T)OP(r, a[i]);                                  \
      b[ctx->lid] = r;                                                                             \
    }                                                                                              \
    __isg_wg_sync();                                                                               \
    T r = b[0];                                                                                    \
    for (uint i = 1u; i * k < n; ++i) r = (T)OP(r, b[i]);                                          \
    return r;                                                                                      \
  }

/* Steps 1-3 for a scan: a work-item folds its chunk's values before its own in step 2 (the
 * chunk's last publishes the chunk's total), and the totals of the chunks before its own in
 * step 3. ID is the operation's identity, the exclusive scan's first result. */
#define __ISG_WG_SCAN_DEF(FN, OP, ID, T, INCLUSIVE)                                                \
  __ISG_OVL T FN(__isg_ctx_t* ctx, T x) {                                                          \
    __local T* a = (__local T*)__isg_wg_region(ctx, 0u);                                           \
    __local T* b = (__local T*)__isg_wg_region(ctx, 1u);                                           \
    const uint n = ctx->lsize, k = __isg_wg_chunk(n), c = ctx->lid / k, first = c * k;             \
    a[ctx->lid] = x;                                                                               \
    __isg_wg_sync();                                                                               \
    T own = (T)(ID);                                                                               \
    for (uint i = first; i < ctx->lid; ++i) own = (T)OP(own, a[i]);                                \
    if (ctx->lid == min(first + k, n) - 1u) b[c] = (T)OP(own, x);                                  \
    __isg_wg_sync();                                                                               \
    T r = (T)(ID);                                                                                 \
    for (uint i = 0u; i < c; ++i) r = (T)OP(r, b[i]);                                              \
    r = (T)OP(r, own);                                                                             \
    return (INCLUSIVE) ? (T)OP(r, x) : r;                                                          \
  }

#define __ISG_WG_REDUCE_BODY(name, op, T, s, w, req)                                               \
  ISG_REQ_##req(__ISG_WG_REDUCE_DEF(__isg_##name, __ISG_OP_##op, T))
#define __ISG_WG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)                                       \
  ISG_REQ_##req(__ISG_WG_SCAN_DEF(__isg_##name, __ISG_OP_##op, __ISG_IDENTITY_##op(s), T, 1))
#define __ISG_WG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)                                       \
  ISG_REQ_##req(__ISG_WG_SCAN_DEF(__isg_##name, __ISG_OP_##op, __ISG_IDENTITY_##op(s), T, 0))

/* work_group_all and _any: the least and the greatest truth of the work-items' predicates. */
__ISG_WG_REDUCE_DEF(__isg_wg_vote_all, __ISG_OP_min, int)
__ISG_WG_REDUCE_DEF(__isg_wg_vote_any, __ISG_OP_max, int)
#define __ISG_WG_VOTE_BODY(name, kind)                                                             \
  __ISG_OVL int __isg_##name(__isg_ctx_t* ctx, int predicate) {                                    \
    return __isg_wg_vote_##kind(ctx, predicate != 0);                                              \
  }

/* work_group_broadcast: the work-item of linear local id `src` hands its value over. The local
 * ids of a 2- or 3-dimensional call are the work-item's own, as get_local_id gives them. */
#define __ISG_WG_BROADCAST_BODY(name, T, s, w, req)                                                \
  ISG_REQ_##req(__ISG_OVL T __isg_wg_broadcast_linear(__isg_ctx_t* ctx, T x, uint src) {           \
    __local T* a = (__local T*)__isg_wg_region(ctx, 0u);                                           \
    if (ctx->lid == src) a[0] = x;                                                                 \
    __isg_wg_sync();                                                                               \
    const T r = a[0];                                                                              \
    __isg_wg_sync();                                                                               \
    return r;                                                                                      \
  }                                                                                                \
  __ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, size_t lx) {                                     \
    return __isg_wg_broadcast_linear(ctx, x, (uint)lx);                                            \
  }                                                                                                \
  __ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, size_t lx, size_t ly) {                          \
    return __isg_wg_broadcast_linear(ctx, x, (uint)(lx + get_local_size(0) * ly));                 \
  }                                                                                                \
  __ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, size_t lx, size_t ly, size_t lz) {               \
    return __isg_wg_broadcast_linear(                                                              \
        ctx, x, (uint)(lx + get_local_size(0) * (ly + get_local_size(1) * lz)));                   \
  })

#endif
