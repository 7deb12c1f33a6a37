/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_shuffle{,_down,_up,_xor}. Indices are taken against S (max_sub_group_size),
 * exactly as the spec words them, also in a partial last sub-group. Out-of-range indices, which
 * the spec leaves undefined, are wrapped into the sub-group's own slots.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_SHUFFLE_BODY(name, T, req, index)                                                    \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T data, uint c) {                       \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[ctx->lid] = data;                                                                            \
    __isg_exchange_sync();                                                                         \
    T r = p[__isg_member_slot(ctx, index)];                                                        \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

/*
 * Both sources travel as one pair per work-item in a single exchange. `i` runs over [0, 2S):
 * i < S picks the first source of member i, S <= i < 2S the second source of member i - S.
 * shuffle_down: i = sglid + delta, pair (current, next).
 * shuffle_up:   i = sglid + S - delta, pair (previous, current), i.e. the signed index
 *               sglid - delta shifted by S, so [-S, 0) lands on previous and [0, S) on current.
 */
#define __ISG_SHUFFLE2_BODY(name, T, req, first, second, index)                                    \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T first, T second, uint delta) {        \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                           \
    p[2 * ctx->lid] = first;                                                                       \
    p[2 * ctx->lid + 1] = second;                                                                  \
    __isg_exchange_sync();                                                                         \
    uint i = (index);                                                                              \
    T r = p[2 * __isg_member_slot(ctx, i) + ((i / ctx->S) & 1u)];                                  \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  })

#define __ISG_DEF_intel_sub_group_shuffle(T, s, w, req)                                            \
  __ISG_SHUFFLE_BODY(intel_sub_group_shuffle, T, req, c)
#define __ISG_DEF_intel_sub_group_shuffle_xor(T, s, w, req)                                        \
  __ISG_SHUFFLE_BODY(intel_sub_group_shuffle_xor, T, req, ctx->sglid ^ c)
#define __ISG_DEF_intel_sub_group_shuffle_down(T, s, w, req)                                       \
  __ISG_SHUFFLE2_BODY(intel_sub_group_shuffle_down, T, req, current, next, ctx->sglid + delta)
#define __ISG_DEF_intel_sub_group_shuffle_up(T, s, w, req)                                         \
  __ISG_SHUFFLE2_BODY(intel_sub_group_shuffle_up, T, req, previous, current,                       \
                      ctx->sglid + ctx->S - delta)

#define __ISG_ROW_shuffle(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_shuffle(name, shape, typeset)
#endif
