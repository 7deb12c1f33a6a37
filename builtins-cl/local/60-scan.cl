/* SPDX-License-Identifier: MIT */
/* sub_group_scan_{inclusive,exclusive}_<op>: each member folds the slots of lower local ids. */
#ifdef ISG_NEED_scan

#define __ISG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = p[ctx->base];                                                                            \
    for (uint i = 1; i <= ctx->sglid; ++i) r = (T)__ISG_OP_##op(r, p[ctx->base + i]);              \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

#define __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = (T)__ISG_IDENTITY_##op(s);                                                               \
    for (uint i = 0; i < ctx->sglid; ++i) r = (T)__ISG_OP_##op(r, p[ctx->base + i]);               \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })
#endif
