/* SPDX-License-Identifier: MIT */
/*
 * sub_group_reduce_<op>. On sm_80+ a sub-group that is the whole warp (S = 32) reduces integers
 * of 32 bits or fewer with one redux.sync (8- and 16-bit values widened, which keeps add's
 * wrap-around after truncation and min/max exact). redux has no segments: smaller sub-groups
 * would need their own lanes as its mask, which ptxas serialises (see 05-context.cl).
 *
 * Otherwise a butterfly from the smallest offset up, written so that it needs no branch for a
 * partial last sub-group (a branch per call would stop independent reductions from
 * overlapping): after the step with offset o, every lane of each aligned block of 2o lanes
 * holds the reduction of the block's existing members. At step o a lane's partner block starts
 * at `start`; if the partner lane itself does not exist but the block does, the block's first
 * lane holds the same value; if the whole block is missing it contributes nothing (the lane
 * reads itself: min/max absorb that, add skips it). In a full sub-group this is the plain
 * butterfly: log2(S) shuffles, every lane ends with the result.
 */

#ifdef ISG_NEED_reduce

#if defined(__ISG_NV_SM) && __ISG_NV_SM >= 80
#define __ISG_REDUX_FN(op, W, ptx)                                                                 \
  static inline W __isg_redux_##op##_##ptx(W x, uint mask) {                                       \
    W r;                                                                                           \
    __asm__ volatile("redux.sync." #op "." #ptx " %0, %1, %2;" : "=r"(r) : "r"(x), "r"(mask));     \
    return r;                                                                                      \
  }
__ISG_REDUX_FN(add, uint, u32)
__ISG_REDUX_FN(min, uint, u32)
__ISG_REDUX_FN(max, uint, u32)
__ISG_REDUX_FN(add, int, s32)
__ISG_REDUX_FN(min, int, s32)
__ISG_REDUX_FN(max, int, s32)
#undef __ISG_REDUX_FN
/* Which scalar types reduce through redux, and how they widen to 32 bits. */
#define __ISG_REDUX_char(op, x, m) __isg_redux_##op##_s32((int)(x), m)
#define __ISG_REDUX_short(op, x, m) __isg_redux_##op##_s32((int)(x), m)
#define __ISG_REDUX_int(op, x, m) __isg_redux_##op##_s32(x, m)
#define __ISG_REDUX_uchar(op, x, m) __isg_redux_##op##_u32((uint)(x), m)
#define __ISG_REDUX_ushort(op, x, m) __isg_redux_##op##_u32((uint)(x), m)
#define __ISG_REDUX_uint(op, x, m) __isg_redux_##op##_u32(x, m)
#define __ISG_IF_REDUX_char(x) x
#define __ISG_IF_REDUX_uchar(x) x
#define __ISG_IF_REDUX_short(x) x
#define __ISG_IF_REDUX_ushort(x) x
#define __ISG_IF_REDUX_int(x) x
#define __ISG_IF_REDUX_uint(x) x
#else
/* Before sm_80 every type takes the shuffles. */
#define __ISG_IF_REDUX_char(x)
#define __ISG_IF_REDUX_uchar(x)
#define __ISG_IF_REDUX_short(x)
#define __ISG_IF_REDUX_ushort(x)
#define __ISG_IF_REDUX_int(x)
#define __ISG_IF_REDUX_uint(x)
#endif
#define __ISG_IF_REDUX_long(x)
#define __ISG_IF_REDUX_ulong(x)
#define __ISG_IF_REDUX_float(x)
#define __ISG_IF_REDUX_half(x)
#define __ISG_IF_REDUX_double(x)
#define __ISG_IF_REDUX(s, x) __ISG_IF_REDUX_##s(x)

#endif /* ISG_NEED_reduce */

/* The combining step, shared with 60-scan.cl (whose lanes below the offset read themselves). */
#if defined(ISG_NEED_reduce) || defined(ISG_NEED_scan)

/* Folding the partner block's value in; `present` is false when that block has no member. A
 * missing block's src is the lane itself, which min and max absorb with no test. add must skip
 * it: integers take a predicated add written in PTX (ptxas turns a C select, a multiply by
 * 0/1 or an `if` into SEL + IADD, two instructions per step: 0.86x a full-group butterfly at
 * S = 16; the predicated add is one, 0.98x); float and double too: NVIDIA's compiler makes an
 * `if` a predicated FADD, but LLVM (programs from SPIR-V, docs/spirv.md) makes it a select, 13 %
 * slower (and a multiply would turn an infinity into a NaN); half keeps the `if`. Measured on
 * sm_90. */
static inline uint __isg_add_if_u32(uint x, uint y, uint present) {
  __asm__("{ .reg .pred q; setp.ne.u32 q, %2, 0; @q add.u32 %0, %0, %1; }"
          : "+r"(x) : "r"(y), "r"(present));
  return x;
}
static inline ulong __isg_add_if_u64(ulong x, ulong y, uint present) {
  __asm__("{ .reg .pred q; setp.ne.u32 q, %2, 0; @q add.u64 %0, %0, %1; }"
          : "+l"(x) : "l"(y), "r"(present));
  return x;
}
static inline float __isg_add_if_f32(float x, float y, uint present) {
  __asm__("{ .reg .pred q; setp.ne.u32 q, %2, 0; @q add.f32 %0, %0, %1; }"
          : "+f"(x) : "f"(y), "r"(present));
  return x;
}
#ifdef cl_khr_fp64
static inline double __isg_add_if_f64(double x, double y, uint present) {
  __asm__("{ .reg .pred q; setp.ne.u32 q, %2, 0; @q add.f64 %0, %0, %1; }"
          : "+d"(x) : "d"(y), "r"(present));
  return x;
}
#endif
#define __ISG_REDUCE_COMBINE_add(T, s, x, y, present) __ISG_ADD_IF_##s(T, x, y, present)
#define __ISG_REDUCE_COMBINE_min(T, s, x, y, present) x = (T)min(x, y);
#define __ISG_REDUCE_COMBINE_max(T, s, x, y, present) x = (T)max(x, y);
/* 8- to 32-bit integers add in 32 bits: the truncation back to T keeps the wrap-around. */
#define __ISG_ADD_IF_INT(T, x, y, present) x = (T)__isg_add_if_u32((uint)(x), (uint)(y), (present));
#define __ISG_ADD_IF_INT64(T, x, y, present) x = (T)__isg_add_if_u64((ulong)(x), (ulong)(y), (present));
#define __ISG_ADD_IF_FP(T, x, y, present)                                                          \
  if (present) x = (T)(x + y);
#define __ISG_ADD_IF_char __ISG_ADD_IF_INT
#define __ISG_ADD_IF_uchar __ISG_ADD_IF_INT
#define __ISG_ADD_IF_short __ISG_ADD_IF_INT
#define __ISG_ADD_IF_ushort __ISG_ADD_IF_INT
#define __ISG_ADD_IF_int __ISG_ADD_IF_INT
#define __ISG_ADD_IF_uint __ISG_ADD_IF_INT
#define __ISG_ADD_IF_long __ISG_ADD_IF_INT64
#define __ISG_ADD_IF_ulong __ISG_ADD_IF_INT64
#define __ISG_ADD_IF_float(T, x, y, present) x = __isg_add_if_f32(x, y, (present));
#define __ISG_ADD_IF_half __ISG_ADD_IF_FP
#define __ISG_ADD_IF_double(T, x, y, present) x = __isg_add_if_f64(x, y, (present));

#endif /* ISG_NEED_reduce || ISG_NEED_scan */

#ifdef ISG_NEED_reduce
#define __ISG_REDUCE_BODY(name, op, T, s, w, req)                                                  \
  ISG_REQ_##req(__ISG_OVL T __isg_##name(__isg_ctx_t* ctx, T x) {                                  \
    const uint mask = __isg_member_mask(ctx);                                                      \
    __ISG_IF_REDUX(s, if (ctx->S == 32u) return (T)__ISG_REDUX_##s(op, x, mask);)                  \
    for (uint o = 1u; o < ctx->S; o <<= 1) {                                                       \
      uint partner = ctx->sglid ^ o;                                                               \
      uint start = partner & ~(o - 1u);                                                            \
      uint src = partner < ctx->sgsize ? partner : start < ctx->sgsize ? start : ctx->sglid;       \
      T y;                                                                                         \
      __ISG_XFER(T, s, w, y, x, __isg_shfl_idx, src, mask)                                         \
      __ISG_REDUCE_COMBINE_##op(T, s, x, y, (uint)(start < ctx->sgsize))                           \
    }                                                                                              \
    return x;                                                                                      \
  })
#endif
