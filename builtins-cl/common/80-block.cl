/* SPDX-License-Identifier: MIT */
/*
 * intel_sub_group_block_read/write (table rows ISG_BLOCK, family `block`). Buffer forms need no
 * exchange: member i's k-th element is p[i + k*S]. Image forms address bytes: member i's k-th
 * element holds the sizeof(element) bytes at byte x = byte_coord.x + sizeof(element)*i of row
 * byte_coord.y + k, read "without format conversion" (75-image.cl).
 * Every row of the table has these forms: uint (and the _ui aliases), _us, _uc and _ul, i.e.
 * elements of 4, 2, 1 and 8 bytes per value.
 * Bounds: reads clamp each element coordinate to the edge (the CLAMP_TO_EDGE rule
 * cl_intel_subgroups gives for images whose element is as wide as the type, applied per element
 * for every size); writes skip elements outside the image; an element only partly covered by
 * one work-item's write (element wider than the written type) is skipped, since write_image*
 * cannot write part of an element.
 */
#ifdef ISG_NEED_block

/* Each with the format from the image's queries, or from the facts the layer passes where the
   kernel names its own image parameter (75-image.cl, __isg_image_fmt_of).
   One-channel unsigned-integer images whose element is as wide as E, at an element-aligned
   column, take straight-line code of their own (the media fast path's reasons, 85-media.cl:
   values in an array indexed by constants only; writes with no condition of their own, since
   NVIDIA's write_imageui reads the channel order once for a straight run of writes and once per
   write under its own condition), writes only where all W rows are inside the image. */
#define __ISG_BLOCK_DIRECT(f, E, bx) ((f).direct && (f).es == (int)sizeof(E) && (bx) % (f).es == 0)
#define __ISG_BLOCK_LOAD(k)                                                                        \
  {                                                                                                \
    const uint4 raw = __isg_image_load_u(img, (int2)(x, clamp(coord.y + (k), 0, f.height - 1)));   \
    v[k] = alpha ? raw.w : raw.x;                                                                  \
  }
#define __ISG_BLOCK_STORE(k) __isg_image_store_u(img, (int2)(x, coord.y + (k)), (uint4)((uint)v[k]));
#define __ISG_BLOCK_IMAGE_READ(rname, E, W, ACCESS)                                                \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname##_fmt(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img,          \
                                                 int2 coord, const __isg_image_fmt_t f) {          \
    int bx = coord.x + (int)(sizeof(E) * ctx->sglid);                                              \
    if (__ISG_BLOCK_DIRECT(f, E, bx)) {                                                            \
      E v[W];                                                                                      \
      const int x = clamp(bx / f.es, 0, f.width - 1);                                              \
      const bool alpha = f.order == CLK_A;                                                         \
      __ISG_REP_##W(__ISG_BLOCK_LOAD)                                                              \
      return __ISG_VLOAD_##W(v);                                                                   \
    }                                                                                              \
    E v[W];                                                                                        \
    for (int k = 0; k < W; ++k)                                                                    \
      v[k] = (E)__isg_image_read_bytes(img, f, bx, coord.y + k, (int)sizeof(E));                   \
    return __ISG_VLOAD_##W(v);                                                                     \
  }                                                                                                \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img, int2 coord) {  \
    return __isg_##rname##_fmt(ctx, img, coord, __isg_image_fmt(img));                             \
  }                                                                                                \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img, int2 coord,    \
                                           int4 facts) {                                           \
    return __isg_##rname##_fmt(ctx, img, coord, __isg_image_fmt_of(facts));                        \
  }
#define __ISG_BLOCK_IMAGE_WRITE(wname, E, W, ACCESS)                                               \
  __ISG_OVL void __isg_##wname##_fmt(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img, int2 coord,          \
                                     __ISG_VEC_##W(E) data, const __isg_image_fmt_t f) {           \
    int bx = coord.x + (int)(sizeof(E) * ctx->sglid);                                              \
    if (__ISG_BLOCK_DIRECT(f, E, bx) && bx >= 0 && bx / f.es < f.width && coord.y >= 0 &&         \
        (W) <= f.height - coord.y) {                                                               \
      E v[W];                                                                                      \
      __ISG_VSTORE_##W(data, v);                                                                   \
      const int x = bx / f.es;                                                                     \
      __ISG_REP_##W(__ISG_BLOCK_STORE)                                                             \
      return;                                                                                      \
    }                                                                                              \
    E v[W];                                                                                        \
    __ISG_VSTORE_##W(data, v);                                                                     \
    for (int k = 0; k < W; ++k)                                                                    \
      __isg_image_write_bytes(img, f, bx, coord.y + k, (int)sizeof(E), (ulong)v[k]);               \
  }                                                                                                \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img, int2 coord,                \
                               __ISG_VEC_##W(E) data) {                                            \
    __isg_##wname##_fmt(ctx, img, coord, data, __isg_image_fmt(img));                              \
  }                                                                                                \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, __ISG_IMG(ACCESS) img, int2 coord,                \
                               __ISG_VEC_##W(E) data, int4 facts) {                                \
    __isg_##wname##_fmt(ctx, img, coord, data, __isg_image_fmt_of(facts));                         \
  }

#ifdef __ISG_HAVE_READ_WRITE_IMAGES
#define __ISG_BLOCK_IMAGE_RW(rname, wname, E, W)                                                   \
  __ISG_BLOCK_IMAGE_READ(rname, E, W, read_write) __ISG_BLOCK_IMAGE_WRITE(wname, E, W, read_write)
#elif defined(__ISG_EMULATED_RW_IMAGES)
#define __ISG_BLOCK_IMAGE_RW(rname, wname, E, W)                                                   \
  __ISG_BLOCK_IMAGE_READ(rname, E, W, emulated) __ISG_BLOCK_IMAGE_WRITE(wname, E, W, emulated)
#else
#define __ISG_BLOCK_IMAGE_RW(rname, wname, E, W)
#endif

/* The pointer of buffer block IO whose members may pass different ones: member 0's, from which
 * Intel's runtime reads (the rewriter's __ISG_L0_<name> macros; the spec asks for one pointer,
 * OpenVINO's fully connected kernels pass each member's own). */
__ISG_OVL const __global void* __isg_first_member_rd(__isg_ctx_t* ctx, const __global void* p) {
  return (const __global void*)__isg_first_member_word(ctx, (ulong)p);
}
__ISG_OVL const __local void* __isg_first_member_rd(__isg_ctx_t* ctx, const __local void* p) {
  return (const __local void*)(size_t)__isg_first_member_word(ctx, (ulong)(size_t)p);
}
__ISG_OVL __global void* __isg_first_member_wr(__isg_ctx_t* ctx, __global void* p) {
  return (__global void*)__isg_first_member_word(ctx, (ulong)p);
}
__ISG_OVL __local void* __isg_first_member_wr(__isg_ctx_t* ctx, __local void* p) {
  return (__local void*)(size_t)__isg_first_member_word(ctx, (ulong)(size_t)p);
}

#define __ISG_BLOCK_DEFS(rname, wname, ext, E, W)                                                  \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, const __global E* p) {                \
    p = (const __global E*)__isg_block_pointer(ctx, (ulong)p);                                     \
    E v[W];                                                                                        \
    for (uint k = 0; k < W; ++k) v[k] = p[ctx->sglid + k * ctx->S];                                \
    return __ISG_VLOAD_##W(v);                                                                     \
  }                                                                                                \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, __global E* p, __ISG_VEC_##W(E) data) {           \
    p = (__global E*)__isg_block_pointer(ctx, (ulong)p);                                           \
    E v[W];                                                                                        \
    __ISG_VSTORE_##W(data, v);                                                                     \
    for (uint k = 0; k < W; ++k) p[ctx->sglid + k * ctx->S] = v[k];                                \
  }                                                                                                \
  ISG_REQ_images(__ISG_BLOCK_IMAGE_READ(rname, E, W, read_only)                                    \
                 __ISG_BLOCK_IMAGE_WRITE(wname, E, W, write_only)                                  \
                 __ISG_BLOCK_IMAGE_RW(rname, wname, E, W))

ISG_BLOCKS(__ISG_BLOCK_DEFS)

#endif
