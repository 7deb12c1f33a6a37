/* SPDX-License-Identifier: MIT */
/*
 * sub_group_all / sub_group_any: the native vote when the sub-group is the native one; else a
 * min / max reduction of (predicate != 0) over the partition.
 */
#ifdef ISG_NEED_vote

#define __ISG_DEF_sub_group_all                                                                    \
  __ISG_KHR_FN int __isg_sub_group_all(__isg_ctx_t* ctx, int predicate) {                          \
    if (__ISG_KHR_WHOLE(ctx)) return __isg_k_all(ctx, predicate);                                            \
    return __isg_khr_reduce_min(ctx, (int)(predicate != 0));                                       \
  }
#define __ISG_DEF_sub_group_any                                                                    \
  __ISG_KHR_FN int __isg_sub_group_any(__isg_ctx_t* ctx, int predicate) {                          \
    if (__ISG_KHR_WHOLE(ctx)) return __isg_k_any(ctx, predicate);                                            \
    return __isg_khr_reduce_max(ctx, (int)(predicate != 0));                                       \
  }

#define __ISG_ROW_vote(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_vote(name, shape, typeset)
#endif
