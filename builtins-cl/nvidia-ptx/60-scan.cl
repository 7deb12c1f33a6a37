/* SPDX-License-Identifier: MIT */
/*
 * sub_group_scan_{inclusive,exclusive}_<op>: Hillis-Steele over log2(S) shfl.up (the CUDA idiom).
 * Every read goes to a lower lane, and lower lanes always exist, so a partial last sub-group
 * needs no special case. The exclusive scan shifts the inclusive one up by one lane.
 */
#ifdef ISG_NEED_scan

#define __ISG_OP_add(a, b) ((a) + (b))
#define __ISG_OP_min(a, b) min(a, b)
#define __ISG_OP_max(a, b) max(a, b)

#define __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                          \
  for (uint o = 1; o < ctx->S; o <<= 1) {                                                          \
    T y;                                                                                           \
    __ISG_XFER(T, s, w, y, x, __isg_shfl_up, o, mask)                                              \
    if (ctx->sglid >= o) x = (T)__ISG_OP_##op(x, y);                                               \
  }

#define __ISG_SCAN_IN_BODY(name, op, T, s, w, req)                                                 \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    uint mask = __isg_activemask();                                                                \
    __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                              \
    return x;                                                                                      \
  })
#define __ISG_SCAN_EX_BODY(name, op, identity, T, s, w, req)                                       \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    T y;                                                                                           \
    uint mask = __isg_activemask();                                                                \
    __ISG_SCAN_INCLUSIVE(T, s, w, op)                                                              \
    __ISG_XFER(T, s, w, y, x, __isg_shfl_up, 1u, mask)                                             \
    return ctx->sglid == 0u ? (T)(identity) : y;                                                   \
  })

#define __ISG_DEF_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_IN_BODY(sub_group_scan_inclusive_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_IN_BODY(sub_group_scan_inclusive_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_IN_BODY(sub_group_scan_inclusive_max, max, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EX_BODY(sub_group_scan_exclusive_add, add, 0, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EX_BODY(sub_group_scan_exclusive_min, min, __ISG_MAX_##s, T, s, w, req)
#define __ISG_DEF_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EX_BODY(sub_group_scan_exclusive_max, max, __ISG_MIN_##s, T, s, w, req)
/* cl_intel_subgroups_short/_char spell the 8- and 16-bit forms with the intel_ prefix. */
#define __ISG_DEF_intel_sub_group_scan_inclusive_add(T, s, w, req) __ISG_SCAN_IN_BODY(intel_sub_group_scan_inclusive_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_min(T, s, w, req) __ISG_SCAN_IN_BODY(intel_sub_group_scan_inclusive_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_inclusive_max(T, s, w, req) __ISG_SCAN_IN_BODY(intel_sub_group_scan_inclusive_max, max, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_add(T, s, w, req) __ISG_SCAN_EX_BODY(intel_sub_group_scan_exclusive_add, add, 0, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_min(T, s, w, req) __ISG_SCAN_EX_BODY(intel_sub_group_scan_exclusive_min, min, __ISG_MAX_##s, T, s, w, req)
#define __ISG_DEF_intel_sub_group_scan_exclusive_max(T, s, w, req) __ISG_SCAN_EX_BODY(intel_sub_group_scan_exclusive_max, max, __ISG_MIN_##s, T, s, w, req)

#define __ISG_ROW_scan(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_scan(name, shape, typeset)
#endif
