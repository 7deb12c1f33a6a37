/* SPDX-License-Identifier: MIT */
/* sub_group_broadcast: one indexed shuffle per word, over the members (a collective). */
#ifdef ISG_NEED_broadcast

#define __ISG_BROADCAST_BODY(name, T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint id) {                         \
    T r;                                                                                           \
    uint mask = __isg_member_mask(ctx);                                                            \
    __ISG_XFER(T, s, w, r, x, __isg_shfl_idx, id, mask)                                            \
    return r;                                                                                      \
  })
#endif
