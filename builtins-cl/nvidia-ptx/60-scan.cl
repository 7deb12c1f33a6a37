/* SPDX-License-Identifier: MIT */
/*
 * sub_group_scan_{inclusive,exclusive}_<op>: Hillis-Steele over log2(S) shfl.up (the CUDA idiom).
 * Every read goes to a lower lane, and lower lanes always exist, so a partial last sub-group
 * needs no special case; a lane below the offset reads itself, which the reduction's combining
 * step (50-reduce.cl) absorbs or skips. The exclusive scan shifts the inclusive one up by one
 * lane.
 */
#ifdef ISG_NEED_scan

#define __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                          \
  for (uint o = 1; o < ctx->S; o <<= 1) {                                                          \
    T y;                                                                                           \
    __ISG_XFER(T, s, w, y, x, __isg_shfl_up, o, mask)                                              \
    __ISG_REDUCE_COMBINE_##op(T, s, x, y, (uint)(ctx->sglid >= o))                                 \
  }

#define __ISG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    uint mask = __isg_member_mask(ctx);                                                            \
    __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                              \
    return x;                                                                                      \
  })
#define __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    T y;                                                                                           \
    uint mask = __isg_member_mask(ctx);                                                            \
    __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                              \
    __ISG_XFER(T, s, w, y, x, __isg_shfl_up, 1u, mask)                                             \
    return ctx->sglid == 0u ? (T)(__ISG_IDENTITY_##op(s)) : y;                                     \
  })
#endif
