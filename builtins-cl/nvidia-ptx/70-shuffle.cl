/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_shuffle{,_down,_up,_xor} as shfl.sync per 32-bit word. The segment mask makes
 * an index wrap modulo S, so an out-of-range index (undefined by the spec) reads a member of
 * the same sub-group, never another sub-group.
 * up/down take two shuffles and a select: delta may differ per work-item, so the reader, not
 * the source, decides which of the two sources it wants.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_DEF_intel_sub_group_shuffle(T, s, w, req)                                            \
  ISG_REQ_##req(__ISG_OVL T __isg_intel_sub_group_shuffle(__isg_ctx_t* ctx, T data, uint c) {      \
    T r;                                                                                           \
    uint active = __isg_member_mask(ctx);                                                          \
    __ISG_XFER(T, s, w, r, data, __isg_shfl_idx, c, active)                                        \
    return r;                                                                                      \
  })
#define __ISG_DEF_intel_sub_group_shuffle_xor(T, s, w, req)                                        \
  ISG_REQ_##req(__ISG_OVL T __isg_intel_sub_group_shuffle_xor(__isg_ctx_t* ctx, T data,            \
                                                              uint value) {                        \
    T r;                                                                                           \
    uint active = __isg_member_mask(ctx);                                                          \
    __ISG_XFER(T, s, w, r, data, __isg_shfl_bfly, value, active)                                   \
    return r;                                                                                      \
  })
/* index = sglid + delta: [0, S) reads current, [S, 2S) reads next, both of member index % S. */
#define __ISG_DEF_intel_sub_group_shuffle_down(T, s, w, req)                                       \
  ISG_REQ_##req(__ISG_OVL T __isg_intel_sub_group_shuffle_down(__isg_ctx_t* ctx, T current,        \
                                                               T next, uint delta) {               \
    uint i = ctx->sglid + delta;                                                                   \
    T a;                                                                                           \
    T b;                                                                                           \
    uint active = __isg_member_mask(ctx);                                                          \
    __ISG_XFER(T, s, w, a, current, __isg_shfl_idx, i, active)                                     \
    __ISG_XFER(T, s, w, b, next, __isg_shfl_idx, i, active)                                        \
    return i < ctx->S ? a : b;                                                                     \
  })
/* index = sglid - delta: [0, S) reads current, [-S, 0) reads previous of member index + S. */
#define __ISG_DEF_intel_sub_group_shuffle_up(T, s, w, req)                                         \
  ISG_REQ_##req(__ISG_OVL T __isg_intel_sub_group_shuffle_up(__isg_ctx_t* ctx, T previous,         \
                                                             T current, uint delta) {              \
    uint i = ctx->sglid - delta;                                                                   \
    T a;                                                                                           \
    T b;                                                                                           \
    uint active = __isg_member_mask(ctx);                                                          \
    __ISG_XFER(T, s, w, a, current, __isg_shfl_idx, i, active)                                     \
    __ISG_XFER(T, s, w, b, previous, __isg_shfl_idx, i, active)                                    \
    return delta <= ctx->sglid ? a : b;                                                            \
  })

#define __ISG_ROW_shuffle(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_shuffle(name, shape, typeset)
#endif
