/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>: per component, in the type the native collectives accept
 * (__ISG_KHR_ARITH_<scalar>), through __isg_khr_reduce_<op> (05-context.cl): the native
 * reduction, a clustered reduction over S lanes, or shuffles.
 */
#ifdef ISG_NEED_reduce

#define __ISG_REDUCE_BODY(name, op, T, s, w, req)                                                  \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_##name(__isg_ctx_t* ctx, T x) {                               \
    __ISG_KHR_MAP(T, s, w, x, x, x, (s)__isg_khr_reduce_##op(ctx, (__ISG_KHR_ARITH_##s)a))         \
    return x;                                                                                      \
  })
#endif
