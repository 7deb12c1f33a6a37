/* SPDX-License-Identifier: MIT */
/* sub_group_broadcast: every member reads one member's slot; a vector wider than the slot in
 * chunks (cl_khr_subgroup_extended_types broadcasts up to double16). */
#ifdef ISG_NEED_broadcast

#define __ISG_BROADCAST_BODY(name, T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint id) {                         \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } in;                                                \
    union { T v; s e[__ISG_COMPONENTS(T, s)]; } out;                                               \
    in.v = x;                                                                                      \
    const uint src = __isg_member_slot(ctx, id);                                                   \
    __ISG_CHUNKED_EXCHANGE(T, s, 1, src, p[ctx->lid * per + j] = in.e[k + j];)                     \
    return out.v;                                                                                  \
  })
#endif
