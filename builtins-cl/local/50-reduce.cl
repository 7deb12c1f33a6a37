/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>: every member folds the whole sub-group's slots itself (S reads from
 * local memory beat a log-step tree that would need one barrier per step).
 */
#ifdef ISG_NEED_reduce

#define __ISG_OP_add(a, b) ((a) + (b))
#define __ISG_OP_min(a, b) min(a, b)
#define __ISG_OP_max(a, b) max(a, b)

/* Folded in increasing local id over the real members only; float order is unspecified by the
 * spec, this one is simply the cheapest. */
#define __ISG_REDUCE_BODY(name, op, T, req)                                                        \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = p[ctx->base];                                                                            \
    for (uint i = 1; i < ctx->sgsize; ++i) r = (T)__ISG_OP_##op(r, p[ctx->base + i]);              \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

#define __ISG_DEF_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_add, add, T, req)
#define __ISG_DEF_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_min, min, T, req)
#define __ISG_DEF_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(sub_group_reduce_max, max, T, req)
#define __ISG_DEF_intel_sub_group_reduce_add(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_add, add, T, req)
#define __ISG_DEF_intel_sub_group_reduce_min(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_min, min, T, req)
#define __ISG_DEF_intel_sub_group_reduce_max(T, s, w, req) __ISG_REDUCE_BODY(intel_sub_group_reduce_max, max, T, req)

#define __ISG_ROW_reduce(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_reduce(name, shape, typeset)
#endif
