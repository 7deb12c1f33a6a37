/* SPDX-License-Identifier: MIT */
/* sub_group_broadcast: one indexed shuffle per word, over the members (a collective). */
#ifdef ISG_NEED_broadcast

#define __ISG_BROADCAST_BODY(name, T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint id) {                         \
    T r;                                                                                           \
    uint mask = __isg_activemask();                                                                \
    __ISG_XFER(T, s, w, r, x, __isg_shfl_idx, id, mask)                                            \
    return r;                                                                                      \
  })

#define __ISG_DEF_sub_group_broadcast(T, s, w, req)                                                \
  __ISG_BROADCAST_BODY(sub_group_broadcast, T, s, w, req)
/* cl_intel_subgroups_short/_char spell the 8- and 16-bit forms with the intel_ prefix. */
#define __ISG_DEF_intel_sub_group_broadcast(T, s, w, req)                                          \
  __ISG_BROADCAST_BODY(intel_sub_group_broadcast, T, s, w, req)
#define __ISG_ROW_broadcast(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_broadcast(name, shape, typeset)
#endif
