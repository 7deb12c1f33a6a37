/* SPDX-License-Identifier: MIT */
/* sub_group_scan_{inclusive,exclusive}_<op>: each member folds the slots of lower local ids. */
#ifdef ISG_NEED_scan

#define __ISG_SCAN_add(a, b) ((a) + (b))
#define __ISG_SCAN_min(a, b) min(a, b)
#define __ISG_SCAN_max(a, b) max(a, b)
/* Exclusive identities, as cl_khr_subgroups defines them (+-INFINITY for floating point). */
#define __ISG_IDENTITY_add(scalar) 0
#define __ISG_IDENTITY_min(scalar) __ISG_MAX_##scalar
#define __ISG_IDENTITY_max(scalar) __ISG_MIN_##scalar

#define __ISG_SCAN_INCLUSIVE_BODY(name, op, T, req)                                                \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = p[ctx->base];                                                                            \
    for (uint i = 1; i <= ctx->sglid; ++i) r = (T)__ISG_SCAN_##op(r, p[ctx->base + i]);            \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

#define __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, scalar, req)                                        \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = (T)__ISG_IDENTITY_##op(scalar);                                                          \
    for (uint i = 0; i < ctx->sglid; ++i) r = (T)__ISG_SCAN_##op(r, p[ctx->base + i]);             \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

#define __ISG_DEF_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_add, add, T, req)
#define __ISG_DEF_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_min, min, T, req)
#define __ISG_DEF_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(sub_group_scan_inclusive_max, max, T, req)
#define __ISG_DEF_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_add, add, T, s, req)
#define __ISG_DEF_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_min, min, T, s, req)
#define __ISG_DEF_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(sub_group_scan_exclusive_max, max, T, s, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_add, add, T, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_min, min, T, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_INCLUSIVE_BODY(intel_sub_group_scan_inclusive_max, max, T, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_add, add, T, s, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_min, min, T, s, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EXCLUSIVE_BODY(intel_sub_group_scan_exclusive_max, max, T, s, req)

#define __ISG_ROW_scan(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_scan(name, shape, typeset)
#endif
