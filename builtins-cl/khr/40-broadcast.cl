/* SPDX-License-Identifier: MIT */
/*
 * sub_group_broadcast: an indexed shuffle per component. The native broadcast needs an id that
 * is uniform across the native sub-group, which the ids of several Intel sub-groups are not.
 */
#ifdef ISG_NEED_broadcast

#define __ISG_BROADCAST_BODY(name, T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_##name(__isg_ctx_t* ctx, T x, uint id) {                      \
    uint lane = __isg_lane(ctx, id);                                                               \
    __ISG_KHR_MAP(T, s, w, x, x, x, __isg_k_shuffle(ctx, a, lane))                                 \
    return x;                                                                                      \
  })
#endif
