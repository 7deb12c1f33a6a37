/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_shuffle{,_down,_up,_xor}. Indices are taken against S (max_sub_group_size),
 * exactly as the spec words them, also in a partial last sub-group. Out-of-range indices, which
 * the spec leaves undefined, are wrapped into the sub-group's own slots.
 */
#ifdef ISG_NEED_shuffle

/*
 * A value larger than the slot (the rewriter caps it at 16 bytes per value) moves in chunks of
 * as many components as the slot holds, one exchange each, so a 16-wide shuffle in a large
 * work-group does not ask for more local memory than the device has. A union gives the
 * components of any gentype (a 3-vector has the storage of four). `per` is a constant once the
 * prologue's SLOT is inlined.
 */
#define __ISG_COMPONENTS(T, s) (sizeof(T) / sizeof(s))

/* Moves `out` in chunks of `per` components: `store` writes component k + j of this work-item's
 * `values` sources into its slot, then every work-item reads member slot `src`. */
#define __ISG_CHUNKED_EXCHANGE(T, s, values, src, store)                                           \
  const uint per = clamp((uint)(ctx->slot / ((values) * sizeof(s))), 1u,                           \
                         (uint)__ISG_COMPONENTS(T, s));                                            \
  for (uint k = 0; k < __ISG_COMPONENTS(T, s); k += per) {                                         \
    __local s* p = (__local s*)__isg_exchange_area(ctx);                                           \
    for (uint j = 0; j < per && k + j < __ISG_COMPONENTS(T, s); ++j) { store }                     \
    __isg_exchange_sync();                                                                         \
    for (uint j = 0; j < per && k + j < __ISG_COMPONENTS(T, s); ++j)                               \
      out.e[k + j] = p[(src) * per + j];                                                           \
    __isg_exchange_done(ctx);                                                                      \
  }

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
#endif
