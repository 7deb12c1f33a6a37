/* SPDX-License-Identifier: MIT */
/* Identity queries: pure arithmetic on the context, no exchange. */
#ifdef ISG_NEED_identity

#define __ISG_DEF_get_sub_group_size                                                               \
  __ISG_OVL uint __isg_get_sub_group_size(__isg_ctx_t* ctx) { return ctx->sgsize; }
#define __ISG_DEF_get_max_sub_group_size                                                           \
  __ISG_OVL uint __isg_get_max_sub_group_size(__isg_ctx_t* ctx) { return ctx->S; }
#define __ISG_DEF_get_num_sub_groups                                                               \
  __ISG_OVL uint __isg_get_num_sub_groups(__isg_ctx_t* ctx) { return ctx->rounded / ctx->S; }
#define __ISG_DEF_get_sub_group_id                                                                 \
  __ISG_OVL uint __isg_get_sub_group_id(__isg_ctx_t* ctx) { return ctx->sgid; }
#define __ISG_DEF_get_sub_group_local_id                                                           \
  __ISG_OVL uint __isg_get_sub_group_local_id(__isg_ctx_t* ctx) { return ctx->sglid; }

#if __OPENCL_C_VERSION__ >= 200
/* Non-uniform work-groups exist from OpenCL C 2.0: the uniform region's size decides. */
#define __ISG_DEF_get_enqueued_num_sub_groups                                                      \
  __ISG_OVL uint __isg_get_enqueued_num_sub_groups(__isg_ctx_t* ctx) {                         \
    uint n = (uint)(get_enqueued_local_size(0) * get_enqueued_local_size(1) *                      \
                    get_enqueued_local_size(2));                                                   \
    return (n + ctx->S - 1) / ctx->S;                                                              \
  }
#else
/* Before 2.0 every work-group is uniform. */
#define __ISG_DEF_get_enqueued_num_sub_groups                                                      \
  __ISG_OVL uint __isg_get_enqueued_num_sub_groups(__isg_ctx_t* ctx) {                         \
    return ctx->rounded / ctx->S;                                                                  \
  }
#endif

#define __ISG_ROW_identity(name, shape, typeset) __ISG_DEF_##name

#else
#define __ISG_ROW_identity(name, shape, typeset)
#endif
