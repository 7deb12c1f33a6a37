/* SPDX-License-Identifier: MIT */
/* sub_group_all / sub_group_any: one ballot over this sub-group's members. */
#ifdef ISG_NEED_vote

__ISG_OVL int __isg_sub_group_all(__isg_ctx_t* ctx, int predicate) {
  return __isg_ballot(ctx, predicate) == ctx->members;
}
__ISG_OVL int __isg_sub_group_any(__isg_ctx_t* ctx, int predicate) {
  return __isg_ballot(ctx, predicate) != 0u;
}

#endif
#define __ISG_ROW_vote(name, shape, typeset)
