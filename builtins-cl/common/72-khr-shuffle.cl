/* SPDX-License-Identifier: MIT */
/*
 * sub_group_shuffle, _xor (cl_khr_subgroup_shuffle), _up and _down
 * (cl_khr_subgroup_shuffle_relative) on every strategy, through its Intel shuffles: the Intel
 * sub-group is the khr one (the layer answers every query for it). A relative shuffle whose
 * source is outside the sub-group is undefined in the khr spec; the value passed as both of
 * Intel's sources keeps it a member's.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_DEF_sub_group_shuffle(T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle(__isg_ctx_t* ctx, T x, uint id) {               \
    return __isg_intel_sub_group_shuffle(ctx, x, id);                                               \
  })
#define __ISG_DEF_sub_group_shuffle_xor(T, s, w, req)                                               \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_xor(__isg_ctx_t* ctx, T x, uint mask) {         \
    return __isg_intel_sub_group_shuffle_xor(ctx, x, mask);                                         \
  })
#define __ISG_DEF_sub_group_shuffle_up(T, s, w, req)                                                \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_up(__isg_ctx_t* ctx, T x, uint delta) {         \
    return __isg_intel_sub_group_shuffle_up(ctx, x, x, delta);                                      \
  })
#define __ISG_DEF_sub_group_shuffle_down(T, s, w, req)                                              \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_down(__isg_ctx_t* ctx, T x, uint delta) {       \
    return __isg_intel_sub_group_shuffle_down(ctx, x, x, delta);                                    \
  })

#endif
