/* SPDX-License-Identifier: MIT */
/*
 * cl_intel_media_block_io (table rows ISG_MEDIA, family `media`). The region of `width`
 * elements (bytes for _uc, words for _us, dwords for _ui) by `height` rows at byte offset
 * src_byte_offset, taken in row-major order, is re-organised as rows of S elements: member i's
 * k-th value is element k*S + i of the region whose rows are padded to a power-of-two byte width
 * (SPV_INTEL_media_block_io, onto which cl_intel_spirv_media_block_io maps these functions),
 * i.e. row (k*S + i) / pitch, column (k*S + i) % pitch. Padding and elements past the region
 * (its area is smaller than S x the vector width) are undefined for reads (0 here) and not
 * written; region elements past S x the vector width are dropped. No
 * member needs another's data, so every strategy runs the same code: each work-item reads or
 * writes its own elements through the raw image access of 75-image.cl, which replicates the
 * nearest edge element for reads outside the image (the spec's rule when the image element is
 * no wider than the function's) and drops writes outside it.
 * The rewriter has checked width and height against the spec's table where it could fold them;
 * a compiler folds them after inlining, and the divisions below with them.
 */
#if defined(ISG_NEED_media) && defined(__IMAGE_SUPPORT__)

/* The re-organised region's row pitch in elements of `es` bytes: the row's byte width rounded
   up to a power of two. */
static inline int __isg_media_pitch(int width, int es) {
  const int bytes = width * es;
  return bytes <= 1 ? width : (1 << (32 - clz(bytes - 1))) / es;
}
#define __ISG_MEDIA_IN(e) ((e) < area && (e) % pitch < width)

/* The fast path: unsigned-integer images whose element is as wide as the function's, one
   channel (R8UI for _uc, R16UI for _us, R32UI for _ui; A too) or RGBA8UI for _ui, as
   straight-line code per value k over the builtin's locals below (private arrays indexed by
   constants only), with the channel count N and width sizeof(E) / N constants: on NVIDIA the
   general packing, with the format's channel count and width as run-time values, cost more
   than the texel accesses themselves (docs/performance.md, benchmark 9). Each value is packed
   as soon as it is read, so only its bits stay live. The fast path has its own array: one
   array shared with the per-element loop, which indexes it with a run-time k, sat in local
   memory (STL/LDL) on every path. */
#define __ISG_MEDIA_AT(k)                                                                          \
  (int2)(x0 + ((k) * S + lane) % pitch, offset.y + ((k) * S + lane) / pitch)
/* The raw channels of an unsigned-integer element of N channels of B bytes, in memory order,
   and back (CLK_A's one channel is swizzled around these). */
#define __ISG_MEDIA_PACK_N(raw, N, B)                                                              \
  ((raw).x & __isg_image_mask(B)) |                                                                \
      ((N) > 1 ? ((raw).y & __isg_image_mask(B)) << ((8 * (B)) & 31) : 0u) |                       \
      ((N) > 2 ? ((raw).z & __isg_image_mask(B)) << ((16 * (B)) & 31) : 0u) |                      \
      ((N) > 3 ? ((raw).w & __isg_image_mask(B)) << ((24 * (B)) & 31) : 0u)
#define __ISG_MEDIA_UNPACK_N(bits, N, B)                                                           \
  (uint4)((bits) & __isg_image_mask(B),                                                            \
          (N) > 1 ? ((bits) >> ((8 * (B)) & 31)) & __isg_image_mask(B) : 0u,                       \
          (N) > 2 ? ((bits) >> ((16 * (B)) & 31)) & __isg_image_mask(B) : 0u,                      \
          (N) > 3 ? ((bits) >> ((24 * (B)) & 31)) & __isg_image_mask(B) : 0u)
/* Value k of a read, `SWIZZLE(raw)` bringing the components to memory order. */
#define __ISG_MEDIA_LOAD(k, N, SWIZZLE)                                                            \
  {                                                                                                \
    const uint4 raw = __isg_image_load_u(img, clamp(__ISG_MEDIA_AT(k), (int2)(0, 0), last));       \
    v[k] = __ISG_MEDIA_IN((k) * S + lane)                                                          \
               ? __ISG_MEDIA_PACK_N(SWIZZLE(raw), N, (int)sizeof(v[0]) / (N))                      \
               : 0u;                                                                               \
  }
#define __ISG_MEDIA_PLAIN(x) (x)
#define __ISG_MEDIA_LOAD_1(k) __ISG_MEDIA_LOAD(k, 1, __ISG_MEDIA_ALPHA)
#define __ISG_MEDIA_ALPHA(x) (alpha ? (x).wxyz : (x))
#define __ISG_MEDIA_LOAD_4(k) __ISG_MEDIA_LOAD(k, 4, __ISG_MEDIA_PLAIN)
/* Value k of a write, with no check: the fast write runs only where every one of the member's
   elements is in the region and inside the image (__ISG_MEDIA_WHOLE). NVIDIA's write_imageui
   queries the image's channel order (SUQ, which costs what a texel access does); for writes
   under their own conditions the query was repeated for every value, while one straight-line
   run of writes shares it. */
#define __ISG_MEDIA_STORE(k, N, SWIZZLE)                                                           \
  __isg_image_store_u(img, __ISG_MEDIA_AT(k),                                                      \
                      SWIZZLE(__ISG_MEDIA_UNPACK_N((uint)v[k], N, (int)sizeof(v[0]) / (N))));
#define __ISG_MEDIA_STORE_1(k) __ISG_MEDIA_STORE(k, 1, __ISG_MEDIA_UNALPHA)
#define __ISG_MEDIA_UNALPHA(x) (alpha ? (x).yzwx : (x))
#define __ISG_MEDIA_STORE_4(k) __ISG_MEDIA_STORE(k, 4, __ISG_MEDIA_PLAIN)
/* The fast path of W values of E for either direction (OP: LOAD or STORE), where
   __ISG_MEDIA_FAST_CASE holds: an unsigned-integer element as wide as E at an element-aligned
   offset, of one channel (R, A) or, for _ui, RGBA8UI, the formats media kernels use. The other
   unsigned-integer orders (RG, RA, BGRA, ARGB) take the per-element path below: every copy
   here multiplies the code every compiler of the program must optimise (Intel's, from SPIR-V,
   most of all). */
#define __ISG_MEDIA_FAST_CASE(f, E, offset)                                                        \
  (!(f).raw && (f).es == (int)sizeof(E) && (offset).x % (f).es == 0 &&                            \
   __isg_image_is_unsigned_int((f).type) &&                                                        \
   ((f).nch == 1 || (sizeof(E) == 4 && (f).nch == 4 && (f).order == CLK_RGBA)))
/* Every element k * S + lane (k < W) of every member is in the region (rows without padding,
   no more elements than the region has) and inside the image, so the write needs no check per
   value; edge regions and padded rows take the per-element path. */
#define __ISG_MEDIA_WHOLE(f, W, x0)                                                                \
  (pitch == width && (W) * S <= area && (x0) >= 0 && offset.y >= 0 &&                            \
   pitch <= (f).width - (x0) && ((W) * S - 1) / pitch < (f).height - offset.y)
#define __ISG_MEDIA_FAST(OP, E, W)                                                                 \
  if (f.nch == 1) {                                                                                \
    const bool alpha = f.order == CLK_A;                                                           \
    __ISG_REP_##W(__ISG_MEDIA_##OP##_1)                                                            \
  } else if (sizeof(E) == 4) {                                                                     \
    __ISG_REP_##W(__ISG_MEDIA_##OP##_4)                                                            \
  }

/* Every other format and offset, an element at a time through 75-image.cl, in one out-of-line
   copy per access qualifier: inlined at every call site, its conversions (half, normalised,
   signed) multiplied the code NVIDIA's compiler had to build by the number of calls. */
#define __ISG_MEDIA_SLOW(ACCESS)                                                                   \
  __attribute__((noinline, overloadable)) static ulong __isg_media_read_bytes(                     \
      __ISG_IMG(ACCESS) img, __isg_image_fmt_t f, int bx, int y, int n) {                          \
    return __isg_image_read_bytes(img, f, bx, y, n);                                               \
  }
#define __ISG_MEDIA_SLOW_WRITE(ACCESS)                                                             \
  __attribute__((noinline, overloadable)) static void __isg_media_write_bytes(                     \
      __ISG_IMG(ACCESS) img, __isg_image_fmt_t f, int bx, int y, int n, ulong bytes) {             \
    __isg_image_write_bytes(img, f, bx, y, n, bytes);                                              \
  }
__ISG_MEDIA_SLOW(read_only)
__ISG_MEDIA_SLOW_WRITE(write_only)
#ifdef __ISG_HAVE_READ_WRITE_IMAGES
__ISG_MEDIA_SLOW(read_write)
__ISG_MEDIA_SLOW_WRITE(read_write)
#elif defined(__ISG_EMULATED_RW_IMAGES)
__ISG_MEDIA_SLOW(emulated)
__ISG_MEDIA_SLOW_WRITE(emulated)
#endif

#define __ISG_MEDIA_READ(rname, E, W, ACCESS)                                                      \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname##_fmt(__isg_ctx_t* ctx, int2 offset, int width,         \
                                                 int height, __ISG_IMG(ACCESS) img,                \
                                                 const __isg_image_fmt_t f) {                      \
    const int pitch = __isg_media_pitch(width, (int)sizeof(E)), area = pitch * height;             \
    const int S = (int)ctx->S, lane = (int)ctx->sglid;                                             \
    if (__ISG_MEDIA_FAST_CASE(f, E, offset)) {                                                     \
      E v[W];                                                                                      \
      const int x0 = offset.x / f.es;                                                              \
      const int2 last = (int2)(f.width - 1, f.height - 1);                                         \
      __ISG_MEDIA_FAST(LOAD, E, W)                                                                 \
      return __ISG_VLOAD_##W(v);                                                                   \
    }                                                                                              \
    E v[W];                                                                                        \
    for (int k = 0; k < W; ++k) {                                                                  \
      const int e = k * S + lane;                                                                  \
      v[k] = __ISG_MEDIA_IN(e) ? (E)__isg_media_read_bytes(img, f,                                 \
                                 offset.x + (e % pitch) * (int)sizeof(E), offset.y + e / pitch,    \
                                 (int)sizeof(E))                                                   \
                               : (E)0;                                                             \
    }                                                                                              \
    return __ISG_VLOAD_##W(v);                                                                     \
  }                                                                                                \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, int2 offset, int width, int height,   \
                                           __ISG_IMG(ACCESS) img) {                                \
    return __isg_##rname##_fmt(ctx, offset, width, height, img, __isg_image_fmt(img));             \
  }                                                                                                \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, int2 offset, int width, int height,   \
                                           __ISG_IMG(ACCESS) img, int4 facts) {                    \
    return __isg_##rname##_fmt(ctx, offset, width, height, img, __isg_image_fmt_of(facts));        \
  }
#define __ISG_MEDIA_WRITE(wname, E, W, ACCESS)                                                     \
  __ISG_OVL void __isg_##wname##_fmt(__isg_ctx_t* ctx, int2 offset, int width, int height,         \
                                     __ISG_VEC_##W(E) texels, __ISG_IMG(ACCESS) img,               \
                                     const __isg_image_fmt_t f) {                                  \
    const int pitch = __isg_media_pitch(width, (int)sizeof(E)), area = pitch * height;             \
    const int S = (int)ctx->S, lane = (int)ctx->sglid;                                             \
    if (__ISG_MEDIA_FAST_CASE(f, E, offset) && __ISG_MEDIA_WHOLE(f, W, offset.x / f.es)) {         \
      E v[W];                                                                                      \
      __ISG_VSTORE_##W(texels, v);                                                                 \
      const int x0 = offset.x / f.es;                                                              \
      __ISG_MEDIA_FAST(STORE, E, W)                                                                \
      return;                                                                                      \
    }                                                                                              \
    E v[W];                                                                                        \
    __ISG_VSTORE_##W(texels, v);                                                                   \
    for (int k = 0; k < W; ++k) {                                                                  \
      const int e = k * S + lane;                                                                  \
      if (__ISG_MEDIA_IN(e))                                                                       \
        __isg_media_write_bytes(img, f, offset.x + (e % pitch) * (int)sizeof(E),                   \
                                offset.y + e / pitch, (int)sizeof(E), (ulong)v[k]);                \
    }                                                                                              \
  }                                                                                                \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, int2 offset, int width, int height,               \
                               __ISG_VEC_##W(E) texels, __ISG_IMG(ACCESS) img) {                   \
    __isg_##wname##_fmt(ctx, offset, width, height, texels, img, __isg_image_fmt(img));            \
  }                                                                                                \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, int2 offset, int width, int height,               \
                               __ISG_VEC_##W(E) texels, __ISG_IMG(ACCESS) img, int4 facts) {       \
    __isg_##wname##_fmt(ctx, offset, width, height, texels, img, __isg_image_fmt_of(facts));       \
  }
#ifdef __ISG_HAVE_READ_WRITE_IMAGES
#define __ISG_MEDIA_RW(rname, wname, E, W)                                                         \
  __ISG_MEDIA_READ(rname, E, W, read_write) __ISG_MEDIA_WRITE(wname, E, W, read_write)
#elif defined(__ISG_EMULATED_RW_IMAGES)
#define __ISG_MEDIA_RW(rname, wname, E, W)                                                         \
  __ISG_MEDIA_READ(rname, E, W, emulated) __ISG_MEDIA_WRITE(wname, E, W, emulated)
#else
#define __ISG_MEDIA_RW(rname, wname, E, W)
#endif

#define __ISG_MEDIA_DEFS(rname, wname, ext, E, W)                                                  \
  __ISG_MEDIA_READ(rname, E, W, read_only)                                                         \
  __ISG_MEDIA_WRITE(wname, E, W, write_only)                                                       \
  __ISG_MEDIA_RW(rname, wname, E, W)

ISG_MEDIA_BLOCKS(__ISG_MEDIA_DEFS)

#endif
