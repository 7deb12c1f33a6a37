/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>: every member folds the whole sub-group's slots itself (S reads from
 * local memory beat a log-step tree that would need one barrier per step).
 */
#if defined(ISG_NEED_reduce) || defined(ISG_NEED_scan)
/* A member's fold of the sub-group's slots (60-scan.cl too): r starts at `init` and takes the
 * slots of local ids first .. end - 1 in increasing order. The callers paste the names (REQ,
 * FN, OP): an argument is macro-expanded before it reaches here, and `min` is a macro. */
#define __ISG_FOLD_BODY(REQ, FN, OP, T, init, first, end)                                          \
  REQ(__ISG_OVL T FN(__isg_ctx_t* ctx, T x) {                                                      \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = (init);                                                                                  \
    for (uint i = (first); i < (end); ++i) r = (T)OP(r, p[ctx->base + i]);                         \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })
#endif

#ifdef ISG_NEED_reduce
/* Folded in increasing local id over the real members only; float order is unspecified by the
 * spec, this one is simply the cheapest. */
#define __ISG_REDUCE_BODY(name, op, T, s, w, req)                                                  \
  __ISG_FOLD_BODY(ISG_REQ_##req, __isg_##name, __ISG_OP_##op, T, p[ctx->base], 1, ctx->sgsize)
#endif
