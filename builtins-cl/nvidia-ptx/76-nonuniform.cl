/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_subgroup_non_uniform_vote, _ballot and _non_uniform_arithmetic: functions of the
 * members of the sub-group that reach the call (the active ones), in any control flow. The warp
 * says which: the member mask (activemask, or the full mask where the rewriter proved the whole
 * warp reaches the call; 05-context.cl) within this sub-group's lanes. Bit i of an active set
 * below is sub-group local id i. The extensions' uint4 masks have bit i of component i / 32 for
 * member i; S <= 32 here, so a ballot fills .x only, while the functions that read a mask take
 * all 128 bits as given.
 */
#if defined(ISG_NEED_nonuniform_vote) || defined(ISG_NEED_ballot) || \
    defined(ISG_NEED_nonuniform_arith)

/* The active members, and the member mask they were read from (for the warp instructions). */
static inline uint __isg_active_of(__isg_ctx_t* ctx, uint mask) {
  return (mask & ctx->members) >> ctx->lane0;
}
/* The index of the lowest set bit of a nonzero word (clz is OpenCL C 1.1; ctz is 2.0). */
static inline uint __isg_lowest_bit(uint bits) { return 31u - clz(bits & (0u - bits)); }

#endif

#ifdef ISG_NEED_nonuniform_vote

__ISG_OVL int __isg_sub_group_elect(__isg_ctx_t* ctx) {
  const uint active = __isg_active_of(ctx, __isg_member_mask(ctx));
  return __isg_lowest_bit(active) == ctx->sglid;
}
__ISG_OVL int __isg_sub_group_non_uniform_all(__isg_ctx_t* ctx, int predicate) {
  const uint mask = __isg_member_mask(ctx);
  const uint active = mask & ctx->members;
  return (__isg_ballot_of(predicate, mask) & active) == active;
}
__ISG_OVL int __isg_sub_group_non_uniform_any(__isg_ctx_t* ctx, int predicate) {
  const uint mask = __isg_member_mask(ctx);
  return (__isg_ballot_of(predicate, mask) & ctx->members) != 0u;
}
/* Every active member's value equals the first active member's (==: a NaN equals nothing). */
#define __ISG_DEF_sub_group_non_uniform_all_equal(T, s, w, req)                                    \
  ISG_REQ_##req(__ISG_OVL int __isg_sub_group_non_uniform_all_equal(__isg_ctx_t* ctx, T x) {       \
    const uint mask = __isg_member_mask(ctx);                                                      \
    const uint first = __isg_lowest_bit(__isg_active_of(ctx, mask));                               \
    T v;                                                                                           \
    __ISG_XFER(T, s, w, v, x, __isg_shfl_idx, first, mask)                                         \
    const uint active = mask & ctx->members;                                                       \
    return (__isg_ballot_of(x == v, mask) & active) == active;                                     \
  })
#define __ISG_ROW_nonuniform_vote(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_nonuniform_vote(name, shape, typeset)
#endif

#ifdef ISG_NEED_ballot

/* The value of the member `id` names, which must be active (the spec leaves any other
 * undefined): the shuffle reads it whatever it is. */
#define __ISG_DEF_sub_group_non_uniform_broadcast(T, s, w, req)                                    \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_non_uniform_broadcast(__isg_ctx_t* ctx, T x,           \
                                                                  uint id) {                       \
    T r;                                                                                           \
    const uint mask = __isg_member_mask(ctx);                                                      \
    __ISG_XFER(T, s, w, r, x, __isg_shfl_idx, id, mask)                                            \
    return r;                                                                                      \
  })
#define __ISG_DEF_sub_group_broadcast_first(T, s, w, req)                                          \
  ISG_REQ_##req(__ISG_OVL T __isg_sub_group_broadcast_first(__isg_ctx_t* ctx, T x) {               \
    T r;                                                                                           \
    const uint mask = __isg_member_mask(ctx);                                                      \
    const uint first = __isg_lowest_bit(__isg_active_of(ctx, mask));                               \
    __ISG_XFER(T, s, w, r, x, __isg_shfl_idx, first, mask)                                         \
    return r;                                                                                      \
  })
#define __ISG_ROW_ballot(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

__ISG_OVL uint4 __isg_sub_group_ballot(__isg_ctx_t* ctx, int predicate) {
  const uint mask = __isg_member_mask(ctx);
  return (uint4)(__isg_active_of(ctx, __isg_ballot_of(predicate, mask)), 0u, 0u, 0u);
}

/* Bits [0, n) of a 128-bit mask (n <= 128). */
static inline uint __isg_low_bits(uint n) { return n >= 32u ? 0xffffffffu : (1u << n) - 1u; }
static inline uint4 __isg_bits_below(uint4 v, uint n) {
  return v & (uint4)(__isg_low_bits(n), __isg_low_bits(n > 32u ? n - 32u : 0u),
                     __isg_low_bits(n > 64u ? n - 64u : 0u), __isg_low_bits(n > 96u ? n - 96u : 0u));
}
static inline uint __isg_bit_of(uint4 v, uint i) {
  const uint word = i < 32u ? v.x : i < 64u ? v.y : i < 96u ? v.z : v.w;
  return (word >> (i & 31u)) & 1u;
}
static inline uint __isg_bits_set(uint4 v) {
  const uint4 p = popcount(v);
  return p.x + p.y + p.z + p.w;
}

__ISG_OVL int __isg_sub_group_inverse_ballot(__isg_ctx_t* ctx, uint4 value) {
  return (int)__isg_bit_of(value, ctx->sglid);
}
__ISG_OVL int __isg_sub_group_ballot_bit_extract(__isg_ctx_t* ctx, uint4 value, uint index) {
  return index < 128u ? (int)__isg_bit_of(value, index) : 0;
}
/* The bits that count are those of ids below the maximum sub-group size, also in a partial
 * sub-group: Khronos' conformance test and Intel's driver both count them so. */
__ISG_OVL uint __isg_sub_group_ballot_bit_count(__isg_ctx_t* ctx, uint4 value) {
  return __isg_bits_set(__isg_bits_below(value, ctx->S));
}
__ISG_OVL uint __isg_sub_group_ballot_inclusive_scan(__isg_ctx_t* ctx, uint4 value) {
  return __isg_bits_set(__isg_bits_below(value, ctx->sglid + 1u));
}
__ISG_OVL uint __isg_sub_group_ballot_exclusive_scan(__isg_ctx_t* ctx, uint4 value) {
  return __isg_bits_set(__isg_bits_below(value, ctx->sglid));
}
/* The lowest and highest set bit below the maximum sub-group size (undefined by the spec where
 * none is). */
__ISG_OVL uint __isg_sub_group_ballot_find_lsb(__isg_ctx_t* ctx, uint4 value) {
  const uint4 v = __isg_bits_below(value, ctx->S);
  return v.x ? __isg_lowest_bit(v.x)
       : v.y ? 32u + __isg_lowest_bit(v.y)
       : v.z ? 64u + __isg_lowest_bit(v.z)
             : 96u + __isg_lowest_bit(v.w);
}
__ISG_OVL uint __isg_sub_group_ballot_find_msb(__isg_ctx_t* ctx, uint4 value) {
  const uint4 v = __isg_bits_below(value, ctx->S);
  return v.w ? 127u - clz(v.w) : v.z ? 95u - clz(v.z) : v.y ? 63u - clz(v.y) : 31u - clz(v.x);
}
/* Members' bits relative to the caller; ge and gt run to the maximum sub-group size, as
 * Khronos' conformance test reads the spec. */
__ISG_OVL uint4 __isg_get_sub_group_eq_mask(__isg_ctx_t* ctx) {
  const uint4 ones = (uint4)(0xffffffffu);
  return __isg_bits_below(ones, ctx->sglid + 1u) & ~__isg_bits_below(ones, ctx->sglid);
}
__ISG_OVL uint4 __isg_get_sub_group_ge_mask(__isg_ctx_t* ctx) {
  const uint4 ones = (uint4)(0xffffffffu);
  return __isg_bits_below(ones, ctx->S) & ~__isg_bits_below(ones, ctx->sglid);
}
__ISG_OVL uint4 __isg_get_sub_group_gt_mask(__isg_ctx_t* ctx) {
  const uint4 ones = (uint4)(0xffffffffu);
  return __isg_bits_below(ones, ctx->S) & ~__isg_bits_below(ones, ctx->sglid + 1u);
}
__ISG_OVL uint4 __isg_get_sub_group_le_mask(__isg_ctx_t* ctx) {
  return __isg_bits_below((uint4)(0xffffffffu), ctx->sglid + 1u);
}
__ISG_OVL uint4 __isg_get_sub_group_lt_mask(__isg_ctx_t* ctx) {
  return __isg_bits_below((uint4)(0xffffffffu), ctx->sglid);
}

#else
#define __ISG_ROW_ballot(name, shape, typeset)
#endif

#ifdef ISG_NEED_nonuniform_arith

/* The identities of the exclusive scans (the lowest active member's result). */
#define __ISG_NU_IDENTITY_add(s) 0
#define __ISG_NU_IDENTITY_mul(s) 1
#define __ISG_NU_IDENTITY_min(s) __ISG_MAX_##s
#define __ISG_NU_IDENTITY_max(s) __ISG_MIN_##s
#define __ISG_NU_IDENTITY_and(s) (~0)
#define __ISG_NU_IDENTITY_or(s) 0
#define __ISG_NU_IDENTITY_xor(s) 0
#define __ISG_NU_IDENTITY_logical_and(s) 1
#define __ISG_NU_IDENTITY_logical_or(s) 0
#define __ISG_NU_IDENTITY_logical_xor(s) 0

/*
 * A butterfly over the active members, with no branch around its shuffles: after the step with
 * offset o, every active lane holds in `total` the fold, in increasing id, of the active members
 * of its aligned block of 2o ids. At step o it reads the partner block's fold from that block's
 * lowest active member (every active lane of a block holds it), or, where the block has none,
 * itself, and then leaves its values alone; a lane whose partner block lies below it also folds
 * that block into `below`, the fold of the active members with smaller ids (the exclusive
 * scan). log2(S) shuffles, each from an active lane; in a whole sub-group it is the plain
 * butterfly. `kind`: 0 reduce, 1 inclusive scan, 2 exclusive scan.
 */
#define __ISG_NU_BODY(name, kind, op, T, s, w, req)                                                \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    const uint mask = __isg_member_mask(ctx);                                                      \
    const uint active = __isg_active_of(ctx, mask);                                                \
    const T own = (T)__ISG_FIRST_##op(x);                                                          \
    T total = own;                                                                                 \
    T below = (T)__ISG_NU_IDENTITY_##op(s);                                                        \
    for (uint o = 1u; o < ctx->S; o <<= 1) {                                                       \
      const uint start = (ctx->sglid ^ o) & ~(o - 1u);                                             \
      const uint block = (active >> start) & ((1u << o) - 1u);                                     \
      const uint src = block ? start + __isg_lowest_bit(block) : ctx->sglid;                       \
      T y;                                                                                         \
      __ISG_XFER(T, s, w, y, total, __isg_shfl_idx, src, mask)                                     \
      if (block != 0u) {                                                                           \
        if (ctx->sglid & o) {                                                                      \
          if ((kind) != 0) below = (T)__ISG_OP_##op(y, below);                                     \
          total = (T)__ISG_OP_##op(y, total);                                                      \
        } else {                                                                                   \
          total = (T)__ISG_OP_##op(total, y);                                                      \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return (kind) == 0 ? total : (kind) == 1 ? (T)__ISG_OP_##op(below, own) : below;               \
  })
#define __ISG_DEF_sub_group_non_uniform_reduce_add(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_add, 0, add, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_mul(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_mul, 0, mul, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_min(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_min, 0, min, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_max(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_max, 0, max, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_and, 0, and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_or, 0, or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_xor, 0, xor, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_logical_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_logical_and, 0, logical_and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_logical_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_logical_or, 0, logical_or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_reduce_logical_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_reduce_logical_xor, 0, logical_xor, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_add(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_add, 1, add, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_mul(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_mul, 1, mul, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_min(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_min, 1, min, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_max(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_max, 1, max, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_and, 1, and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_or, 1, or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_xor, 1, xor, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_logical_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_logical_and, 1, logical_and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_logical_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_logical_or, 1, logical_or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_inclusive_logical_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_inclusive_logical_xor, 1, logical_xor, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_add(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_add, 2, add, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_mul(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_mul, 2, mul, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_min(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_min, 2, min, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_max(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_max, 2, max, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_and, 2, and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_or, 2, or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_xor, 2, xor, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_logical_and(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_logical_and, 2, logical_and, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_logical_or(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_logical_or, 2, logical_or, T, s, w, req)
#define __ISG_DEF_sub_group_non_uniform_scan_exclusive_logical_xor(T, s, w, req) __ISG_NU_BODY(sub_group_non_uniform_scan_exclusive_logical_xor, 2, logical_xor, T, s, w, req)
#define __ISG_ROW_nonuniform_arith(name, shape, typeset) ISG_TYPES_##typeset(__ISG_DEF_##name)

#else
#define __ISG_ROW_nonuniform_arith(name, shape, typeset)
#endif
