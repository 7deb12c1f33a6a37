/* SPDX-License-Identifier: MIT */
/* sub_group_scan_{inclusive,exclusive}_<op>: each member folds the slots of lower local ids. */
#ifdef ISG_NEED_scan
/* __ISG_FOLD_BODY: 50-reduce.cl. */
#define __ISG_SCAN_INCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  __ISG_FOLD_BODY(ISG_REQ_##req, __isg_##name, __ISG_OP_##op, T, p[ctx->base], 1,              \
                  ctx->sglid + 1)

#define __ISG_SCAN_EXCLUSIVE_BODY(name, op, T, s, w, req)                                          \
  __ISG_FOLD_BODY(ISG_REQ_##req, __isg_##name, __ISG_OP_##op, T, (T)__ISG_IDENTITY_##op(s), 0, \
                  ctx->sglid)
#endif
