/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>: per component, in the type the native collectives accept
 * (__ISG_KHR_ARITH_<scalar>), through __isg_khr_reduce_<op> (05-context.cl): the native
 * reduction, a clustered reduction over S lanes, or shuffles.
 */
#ifdef ISG_NEED_reduce

#define __ISG_KHR_REDUCE_BODY(name, op, T, s, w, req)                                              \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_##name(__isg_ctx_t* ctx, T x) {                               \
    __ISG_KHR_MAP(T, s, w, x, x, x, (s)__isg_khr_reduce_##op(ctx, (__ISG_KHR_ARITH_##s)a))         \
    return x;                                                                                      \
  })

#define __ISG_DEF_sub_group_reduce_add(T, s, w, req) __ISG_KHR_REDUCE_BODY(sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_min(T, s, w, req) __ISG_KHR_REDUCE_BODY(sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_sub_group_reduce_max(T, s, w, req) __ISG_KHR_REDUCE_BODY(sub_group_reduce_max, max, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_add(T, s, w, req) __ISG_KHR_REDUCE_BODY(intel_sub_group_reduce_add, add, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_min(T, s, w, req) __ISG_KHR_REDUCE_BODY(intel_sub_group_reduce_min, min, T, s, w, req)
#define __ISG_DEF_intel_sub_group_reduce_max(T, s, w, req) __ISG_KHR_REDUCE_BODY(intel_sub_group_reduce_max, max, T, s, w, req)

#define __ISG_ROW_reduce(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_reduce(name, shape, typeset)
#endif
