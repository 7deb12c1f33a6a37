/* SPDX-License-Identifier: MIT */
/* sub_group_all / sub_group_any: one int per work-item through the scratch. */
#ifdef ISG_NEED_vote

/* Only the sub-group's real members are counted, so a partial last sub-group votes alone. */
#define __ISG_VOTE_BODY(name, init, combine)                                                       \
  __ISG_OVL int __isg_##name(__isg_ctx_t* ctx, int predicate) {                                \
    __local int* p = (__local int*)__isg_exchange_area(ctx);                                       \
    p[ctx->lid] = predicate != 0;                                                                  \
    __isg_exchange_sync();                                                                         \
    int r = init;                                                                                  \
    for (uint i = 0; i < ctx->sgsize; ++i) r = r combine p[ctx->base + i];                         \
    __isg_exchange_done(ctx);                                                                      \
    return r;                                                                                      \
  }

#define __ISG_DEF_sub_group_all __ISG_VOTE_BODY(sub_group_all, 1, &)
#define __ISG_DEF_sub_group_any __ISG_VOTE_BODY(sub_group_any, 0, |)

#define __ISG_ROW_vote(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_vote(name, shape, typeset)
#endif
