/* SPDX-License-Identifier: MIT */
/* sub_group_all / sub_group_any: one warp ballot, read over this sub-group's lanes only. */
#ifdef ISG_NEED_vote

__ISG_OVL int __isg_sub_group_all(__isg_ctx_t* ctx, int predicate) {
  uint members = __isg_segment_bits(ctx) & __isg_activemask();
  return (__isg_ballot(predicate) & members) == members;
}
__ISG_OVL int __isg_sub_group_any(__isg_ctx_t* ctx, int predicate) {
  return (__isg_ballot(predicate) & __isg_segment_bits(ctx)) != 0u;
}

#endif
#define __ISG_ROW_vote(name, shape, typeset)
