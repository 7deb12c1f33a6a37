/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>: every member folds the whole sub-group's slots itself (S reads from
 * local memory beat a log-step tree that would need one barrier per step).
 */
#ifdef ISG_NEED_reduce

/* Folded in increasing local id over the real members only; float order is unspecified by the
 * spec, this one is simply the cheapest. */
#define __ISG_REDUCE_BODY(name, op, T, s, w, req)                                                  \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = p[ctx->base];                                                                            \
    for (uint i = 1; i < ctx->sgsize; ++i) r = (T)__ISG_OP_##op(r, p[ctx->base + i]);              \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })
#endif
