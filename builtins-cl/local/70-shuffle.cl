/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_shuffle{,_down,_up,_xor}. Indices are taken against S (max_sub_group_size),
 * exactly as the spec words them, also in a partial last sub-group. Out-of-range indices, which
 * the spec leaves undefined, are wrapped into the sub-group's own slots.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_SHUFFLE_BODY(name, T, s, req, index)                                                 \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T data, uint c) {                       \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } in;                                                \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } out;                                               \
    in.v = data;                                                                                   \
    const uint src = __isg_member_slot(ctx, index);                                                \
    __ISG_CHUNKED_EXCHANGE(T, s, 1, src, p[ctx->lid * per + j] = in.e[k + j];)                     \
    return out.v;                                                                                  \
  })

/*
 * Both sources travel as one pair per work-item in a single exchange. `i` runs over [0, 2S):
 * i < S picks the first source of member i, S <= i < 2S the second source of member i - S.
 * shuffle_down: i = sglid + delta, pair (current, next).
 * shuffle_up:   i = sglid + S - delta, pair (previous, current), i.e. the signed index
 *               sglid - delta shifted by S, so [-S, 0) lands on previous and [0, S) on current.
 */
#define __ISG_SHUFFLE2_BODY(name, T, s, req, first, second, index)                                 \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T first, T second, uint delta) {        \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } a;                                                 \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } b;                                                 \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } out;                                               \
    a.v = first;                                                                                   \
    b.v = second;                                                                                  \
    const uint i = (index);                                                                        \
    const uint src = 2 * __isg_member_slot(ctx, i) + ((i / ctx->S) & 1u);                          \
    __ISG_CHUNKED_EXCHANGE(T, s, 2, src, p[2 * ctx->lid * per + j] = a.e[k + j];                   \
                           p[(2 * ctx->lid + 1) * per + j] = b.e[k + j];)                          \
    return out.v;                                                                                  \
  })

#define __ISG_DEF_intel_sub_group_shuffle(T, s, w, req)                                            \
  __ISG_SHUFFLE_BODY(intel_sub_group_shuffle, T, s, req, c)
#define __ISG_DEF_intel_sub_group_shuffle_xor(T, s, w, req)                                        \
  __ISG_SHUFFLE_BODY(intel_sub_group_shuffle_xor, T, s, req, ctx->sglid ^ c)
#define __ISG_DEF_intel_sub_group_shuffle_down(T, s, w, req)                                       \
  __ISG_SHUFFLE2_BODY(intel_sub_group_shuffle_down, T, s, req, current, next, ctx->sglid + delta)
#define __ISG_DEF_intel_sub_group_shuffle_up(T, s, w, req)                                         \
  __ISG_SHUFFLE2_BODY(intel_sub_group_shuffle_up, T, s, req, previous, current,                    \
                      ctx->sglid + ctx->S - delta)

#define __ISG_ROW_shuffle(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_shuffle(name, shape, typeset)
/* sub_group_clustered_reduce_<op> (common/72-khr-shuffle.cl) in one exchange: each member
 * folds its cluster's slots, the members a partial sub-group has. */
#define __ISG_CLUSTERED_REDUCE_BODY(name, OP, FIRST, T)                                             \
  __ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint clustersize) {                               \
    const uint c = max(clustersize, 1u), first = ctx->sglid / c * c;                                \
    const uint end = min(first + c, ctx->sgsize);                                                   \
    __local T* p = (__local T*)__isg_exchange_area(ctx);                                            \
    p[ctx->lid] = x;                                                                                \
    __isg_exchange_sync();                                                                          \
    T r = (T)FIRST(p[ctx->base + first]);                                                           \
    for (uint i = first + 1; i < end; ++i) r = (T)OP(r, p[ctx->base + i]);                          \
    __isg_exchange_done(ctx);                                                                       \
    return r;                                                                                       \
  }

#endif
