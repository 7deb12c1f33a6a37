/* SPDX-License-Identifier: MIT */
/* sub_group_broadcast: every member reads one member's slot. */
#ifdef ISG_NEED_broadcast

#define __ISG_BROADCAST_BODY(name, T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint id) {                         \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = x;                                                                               \
    __isg_exchange_sync();                                                                         \
    T r = p[__isg_member_slot(ctx, id)];                                                           \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })
#endif
