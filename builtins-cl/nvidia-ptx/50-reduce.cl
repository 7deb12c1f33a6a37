/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>. A full sub-group folds with log2(S) butterfly shuffles and every lane
 * ends with the result. A partial last sub-group has lanes that do not exist, whose butterfly
 * partners would be missing, so it folds down a tree towards member 0 (a missing partner is the
 * operation's identity, i.e. skipped) and broadcasts: one shuffle more, only there.
 */
#if defined(ISG_NEED_reduce) || defined(ISG_NEED_scan)
#define __ISG_OP_add(a, b) ((a) + (b))
#define __ISG_OP_min(a, b) min(a, b)
#define __ISG_OP_max(a, b) max(a, b)
#endif

#ifdef ISG_NEED_reduce

#define __ISG_REDUCE_BODY(name, op, T, s, w, req)                                                  \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    T y;                                                                                           \
    if (ctx->sgsize == ctx->S) {                                                                   \
      for (uint o = ctx->S >> 1; o > 0u; o >>= 1) {                                                \
        __ISG_XFER(T, s, w, y, x, __isg_shfl_bfly, o)                                              \
        x = (T)__ISG_OP_##op(x, y);                                                                \
      }                                                                                            \
      return x;                                                                                    \
    }                                                                                              \
    for (uint o = ctx->S >> 1; o > 0u; o >>= 1) {                                                  \
      __ISG_XFER(T, s, w, y, x, __isg_shfl_idx, ctx->sglid + o)                                    \
      if (ctx->sglid + o < ctx->sgsize) x = (T)__ISG_OP_##op(x, y);                                \
    }                                                                                              \
    __ISG_XFER(T, s, w, y, x, __isg_shfl_idx, 0u)                                                  \
    return y;                                                                                      \
  })

#define __ISG_DEF_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_max, max, T, s, w, req)
/* cl_intel_subgroups_short/_char spell the 8- and 16-bit forms with the intel_ prefix. */
#define __ISG_DEF_intel_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_max, max, T, s, w, req)

#define __ISG_ROW_reduce(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_reduce(name, shape, typeset)
#endif
