/* SPDX-License-Identifier: MIT */
/*
 * sub_group_scan_{inclusive,exclusive}_<op>: per component, in the type the native collectives
 * accept, through __isg_khr_scan_*_<op> (05-context.cl): the native scan when the sub-group is
 * the native one, else Hillis-Steele over shuffle_up inside the partition. Member 0 of an
 * exclusive scan gets the identity of the caller's own type (a widened char's INT_MAX would
 * truncate to -1).
 */
#ifdef ISG_NEED_scan

#define __ISG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_##name(__isg_ctx_t* ctx, T x) {                               \
    __ISG_KHR_MAP(T, s, w, x, x, x,                                                                \
                  (s)__isg_khr_scan_inclusive_##op(ctx, (__ISG_KHR_ARITH_##s)a))                   \
    return x;                                                                                      \
  })
#define __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_##name(__isg_ctx_t* ctx, T x) {                               \
    const s identity = (s)__ISG_IDENTITY_##op(s);                                                  \
    s r; /* the scan runs on every member; only then does member 0 take the identity */            \
    __ISG_KHR_MAP(T, s, w, x, x, x,                                                                \
                  (r = (s)__isg_khr_scan_exclusive_##op(ctx, (__ISG_KHR_ARITH_##s)a),              \
                   ctx->sglid == 0u ? identity : r))                                               \
    return x;                                                                                      \
  })
#endif
