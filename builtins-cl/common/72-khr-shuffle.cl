/* SPDX-License-Identifier: MIT */
/*
 * sub_group_shuffle, _xor (cl_khr_subgroup_shuffle), _up and _down
 * (cl_khr_subgroup_shuffle_relative) on every strategy, through its Intel shuffles: the Intel
 * sub-group is the khr one (the layer answers every query for it). A relative shuffle whose
 * source is outside the sub-group is undefined in the khr spec; the value passed as both of
 * Intel's sources keeps it a member's.
 */
#ifdef ISG_NEED_shuffle

#define __ISG_DEF_sub_group_shuffle(T, s, w, req)                                                   \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle(__isg_ctx_t* ctx, T x, uint id) {               \
    return __isg_intel_sub_group_shuffle(ctx, x, id);                                               \
  })
#define __ISG_DEF_sub_group_shuffle_xor(T, s, w, req)                                               \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_xor(__isg_ctx_t* ctx, T x, uint mask) {         \
    return __isg_intel_sub_group_shuffle_xor(ctx, x, mask);                                         \
  })
#define __ISG_DEF_sub_group_shuffle_up(T, s, w, req)                                                \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_up(__isg_ctx_t* ctx, T x, uint delta) {         \
    return __isg_intel_sub_group_shuffle_up(ctx, x, x, delta);                                      \
  })
#define __ISG_DEF_sub_group_shuffle_down(T, s, w, req)                                              \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_shuffle_down(__isg_ctx_t* ctx, T x, uint delta) {       \
    return __isg_intel_sub_group_shuffle_down(ctx, x, x, delta);                                    \
  })

/* sub_group_rotate and sub_group_clustered_rotate (cl_khr_subgroup_rotate): the member
 * (id + delta) mod the rotation's size, delta taken as unsigned as SPIR-V's OpGroupNonUniform-
 * RotateKHR takes it; the size is the maximum sub-group size, as that instruction's is in
 * kernels, or the cluster, whose power-of-two size keeps the wrap exact. A source past the
 * members of a partial sub-group is undefined, as in the spec. */
#define __ISG_DEF_sub_group_rotate(T, s, w, req)                                                    \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_rotate(__isg_ctx_t* ctx, T x, int delta) {              \
    return __isg_intel_sub_group_shuffle(ctx, x, (ctx->sglid + (uint)delta) % ctx->S);              \
  })
#define __ISG_DEF_sub_group_clustered_rotate(T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_clustered_rotate(__isg_ctx_t* ctx, T x, int delta,      \
                                                              uint clustersize) {                  \
    const uint c = max(clustersize, 1u);                                                            \
    return __isg_intel_sub_group_shuffle(ctx, x, ctx->sglid / c * c + (ctx->sglid + (uint)delta) % c); \
  })

/* sub_group_clustered_reduce_<op> (cl_khr_subgroup_clustered_reduce): the members of the
 * caller's cluster (clustersize consecutive sub-group local ids, a power of two) folded in
 * increasing id from the first member's own value, as Khronos' conformance test computes it (a
 * logical one's from its truth: 0 or 1 also for a cluster of one, as Intel's driver answers); a
 * partial sub-group's last cluster folds the members it has. Here through the Intel shuffle, one
 * per member and no branch around it (the khr strategy's shuffles must be reached by the whole
 * native sub-group); the local strategy folds its one exchange itself (local/70-shuffle.cl). */
#ifndef __ISG_CLUSTERED_REDUCE_BODY
#define __ISG_CLUSTERED_REDUCE_BODY(name, OP, FIRST, T)                                             \
  __ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x, uint clustersize) {                               \
    const uint c = max(clustersize, 1u), first = ctx->sglid / c * c;                                \
    T r = (T)FIRST(__isg_intel_sub_group_shuffle(ctx, x, first));                                   \
    for (uint k = 1; k < c; ++k) {                                                                  \
      const T y = __isg_intel_sub_group_shuffle(ctx, x, first + k);                                 \
      if (first + k < ctx->sgsize) r = (T)OP(r, y);                                                 \
    }                                                                                               \
    return r;                                                                                       \
  }
#endif
/* The operator's name is pasted, never expanded as an argument: `min` and `max` are macros. */
#define __ISG_CLUSTERED_DEF(op, T, req)                                                             \
  ISG_REQ_##req(__ISG_CLUSTERED_REDUCE_BODY(sub_group_clustered_reduce_##op, __ISG_OP_##op,        \
                                            __ISG_FIRST_##op, T))
#define __ISG_DEF_sub_group_clustered_reduce_add(T, s, w, req) __ISG_CLUSTERED_DEF(add, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_mul(T, s, w, req) __ISG_CLUSTERED_DEF(mul, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_min(T, s, w, req) __ISG_CLUSTERED_DEF(min, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_max(T, s, w, req) __ISG_CLUSTERED_DEF(max, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_and(T, s, w, req) __ISG_CLUSTERED_DEF(and, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_or(T, s, w, req) __ISG_CLUSTERED_DEF(or, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_xor(T, s, w, req) __ISG_CLUSTERED_DEF(xor, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_logical_and(T, s, w, req)                              \
  __ISG_CLUSTERED_DEF(logical_and, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_logical_or(T, s, w, req)                               \
  __ISG_CLUSTERED_DEF(logical_or, T, req)
#define __ISG_DEF_sub_group_clustered_reduce_logical_xor(T, s, w, req)                              \
  __ISG_CLUSTERED_DEF(logical_xor, T, req)

#endif
