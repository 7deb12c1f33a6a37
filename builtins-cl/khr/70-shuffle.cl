/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_shuffle{,_down,_up,_xor}, one native shuffle per component (the khr shuffles
 * take scalars only). Indices are taken against S, as the spec words them; an out-of-range
 * index, undefined by the spec, reads a member of the same sub-group.
 *
 * up/down are two relative shuffles and a select: delta may differ per work-item, so the reader,
 * not the source, decides which of its two sources it wants. shuffle_down(cur, next, d) reads
 * member sglid + d: below S that is `cur` of the member d lanes down (a native shuffle_down by
 * d, which stays in the partition exactly then), from S on it is `next` of member sglid + d - S,
 * S - d lanes up (a native shuffle_up by S - d). shuffle_up mirrors it. Both shuffles run on
 * every work-item before the select: a native shuffle must be reached by the whole native
 * sub-group.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_DEF_intel_sub_group_shuffle(T, s, w, req)                                            \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_intel_sub_group_shuffle(__isg_ctx_t* ctx, T data, uint i) {   \
    uint lane = __isg_lane(ctx, i);                                                                \
    __ISG_KHR_MAP(T, s, w, data, data, data, __isg_k_shuffle(ctx, a, lane))                        \
    return data;                                                                                   \
  })
/* The partner sglid ^ m stays in the partition when m < S; higher bits are dropped. */
#define __ISG_DEF_intel_sub_group_shuffle_xor(T, s, w, req)                                        \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_intel_sub_group_shuffle_xor(__isg_ctx_t* ctx, T data, uint m) { \
    uint mask = m & (ctx->S - 1u);                                                                 \
    __ISG_KHR_MAP(T, s, w, data, data, data, __isg_k_shuffle_xor(ctx, a, mask))                    \
    return data;                                                                                   \
  })
#define __ISG_DEF_intel_sub_group_shuffle_down(T, s, w, req)                                       \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_intel_sub_group_shuffle_down(__isg_ctx_t* ctx, T current,     \
                                                               T next, uint delta) {               \
    uint d = min(delta, ctx->S);                                                                   \
    int own = ctx->sglid + d < ctx->S;                                                             \
    s x;                                                                                           \
    s y;                                                                                           \
    __ISG_KHR_MAP(T, s, w, current, current, next,                                                 \
                  (x = __isg_k_shuffle_down(ctx, a, d), y = __isg_k_shuffle_up(ctx, b, ctx->S - d), \
                   own ? x : y))                                                                   \
    return current;                                                                                \
  })
#define __ISG_DEF_intel_sub_group_shuffle_up(T, s, w, req)                                         \
  ISG_REQ_##req(__ISG_KHR_FN T __isg_intel_sub_group_shuffle_up(__isg_ctx_t* ctx, T previous,      \
                                                             T current, uint delta) {              \
    uint d = min(delta, ctx->S);                                                                   \
    int own = d <= ctx->sglid;                                                                     \
    s x;                                                                                           \
    s y;                                                                                           \
    __ISG_KHR_MAP(T, s, w, current, current, previous,                                             \
                  (x = __isg_k_shuffle_up(ctx, a, d), y = __isg_k_shuffle_down(ctx, b, ctx->S - d), \
                   own ? x : y))                                                                   \
    return current;                                                                                \
  })

#define __ISG_ROW_shuffle(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_shuffle(name, shape, typeset)
#endif
