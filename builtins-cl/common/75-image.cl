/* SPDX-License-Identifier: MIT */
/*
 * Raw bytes of a 2D image, for block IO on images (80-block.cl) and media block IO
 * (85-media.cl): both address an image by byte and read or write "without format conversion",
 * which core OpenCL C cannot do directly. The raw bits are recovered from the converted channels
 * for the formats where conversion is lossless: UNSIGNED/SIGNED_INT8/16/32, UNORM_INT8/16,
 * HALF_FLOAT, FLOAT with channel orders R, A, INTENSITY, LUMINANCE, RG, RA, RGBA, BGRA, ARGB.
 * Not recoverable (reads give approximations, writes are skipped): SNORM_INT8/16 (-MAX-1 and
 * -MAX both read as -1.0), packed UNORM_SHORT_565/555 and UNORM_INT_101010, sRGB and depth
 * formats; the layer refuses an enqueue that passes such an image to block or media IO
 * (exactForBlockIO in layer/kernels.cpp holds the same list).
 * Reads clamp each element coordinate to the edge, which replicates the nearest edge element
 * byte for byte; writes skip elements outside the image and elements only partly covered.
 */
#if defined(ISG_NEED_block) || defined(ISG_NEED_media)


#define __ISG_VEC_1(E) E
#define __ISG_VEC_2(E) E##2
#define __ISG_VEC_4(E) E##4
#define __ISG_VEC_8(E) E##8
#define __ISG_VEC_16(E) E##16
#define __ISG_VLOAD_1(a) (a)[0]
#define __ISG_VLOAD_2(a) vload2(0, a)
#define __ISG_VLOAD_4(a) vload4(0, a)
#define __ISG_VLOAD_8(a) vload8(0, a)
#define __ISG_VLOAD_16(a) vload16(0, a)
#define __ISG_VSTORE_1(d, a) ((a)[0] = (d))
#define __ISG_VSTORE_2(d, a) vstore2(d, 0, a)
#define __ISG_VSTORE_4(d, a) vstore4(d, 0, a)
#define __ISG_VSTORE_8(d, a) vstore8(d, 0, a)
#define __ISG_VSTORE_16(d, a) vstore16(d, 0, a)

#ifdef __IMAGE_SUPPORT__
#define ISG_REQ_images(x) x
#else
#define ISG_REQ_images(x)
#endif

#ifdef __IMAGE_SUPPORT__
/* Memory channels of one element and the component (x=0 .. w=3) each lands in. */
static inline int __isg_image_channels(int order) {
  switch (order) {
    case CLK_RG: case CLK_RA: return 2;
    case CLK_RGBA: case CLK_BGRA: case CLK_ARGB: return 4;
    default: return 1;
  }
}
static inline int __isg_image_component(int order, int c) {
  switch (order) {
    case CLK_A: return 3;
    case CLK_RA: return c ? 3 : 0;
    case CLK_BGRA: return c == 3 ? 3 : 2 - c;
    case CLK_ARGB: return (c + 3) & 3;
    default: return c;
  }
}
static inline int __isg_image_channel_bytes(int type) {
  switch (type) {
    case CLK_UNSIGNED_INT8: case CLK_SIGNED_INT8: case CLK_UNORM_INT8: case CLK_SNORM_INT8:
      return 1;
    case CLK_UNSIGNED_INT32: case CLK_SIGNED_INT32: case CLK_FLOAT: return 4;
    default: return 2;
  }
}
static inline uint __isg_image_mask(int bytes) { return bytes == 4 ? 0xffffffffu : (1u << (8 * bytes)) - 1u; }

/* Raw bits of the components (x..w) of a converted element value. */
static inline uint4 __isg_image_raw_from_float(float4 f, int type) {
  switch (type) {
    case CLK_UNORM_INT8: return convert_uint4_sat_rte(f * 255.0f);
    case CLK_UNORM_INT16: return convert_uint4_sat_rte(f * 65535.0f);
    case CLK_SNORM_INT8: return as_uint4(convert_int4_sat_rte(f * 127.0f)) & 0xffu;
    case CLK_SNORM_INT16: return as_uint4(convert_int4_sat_rte(f * 32767.0f)) & 0xffffu;
    case CLK_HALF_FLOAT: {
      ushort h[4];
      vstore_half4_rte(f, 0, (__private half*)h);
      return convert_uint4(vload4(0, h));
    }
    default: return as_uint4(f);
  }
}
static inline float4 __isg_image_float_from_raw(uint4 r, int type) {
  switch (type) {
    case CLK_UNORM_INT8: return convert_float4(r) / 255.0f;
    case CLK_UNORM_INT16: return convert_float4(r) / 65535.0f;
    case CLK_HALF_FLOAT: {
      ushort h[4];
      vstore4(convert_ushort4(r), 0, h);
      return vload_half4(0, (__private half*)h);
    }
    default: return as_float4(r);
  }
}
static inline bool __isg_image_is_float(int type) {
  return !(type == CLK_UNSIGNED_INT8 || type == CLK_UNSIGNED_INT16 ||
           type == CLK_UNSIGNED_INT32 || type == CLK_SIGNED_INT8 || type == CLK_SIGNED_INT16 ||
           type == CLK_SIGNED_INT32);
}
static inline bool __isg_image_is_signed(int type) {
  return type == CLK_SIGNED_INT8 || type == CLK_SIGNED_INT16 || type == CLK_SIGNED_INT32;
}
static inline bool __isg_image_writable(int type) {
  return type != CLK_SNORM_INT8 && type != CLK_SNORM_INT16 && type != CLK_UNORM_SHORT_565 &&
         type != CLK_UNORM_SHORT_555 && type != CLK_UNORM_INT_101010;
}
static inline int __isg_floor_div(int a, int b) { return (a >= 0 ? a : a - b + 1) / b; }

/* Per access qualifier: reading n (<= 8) raw bytes at (bx, y), writing them. */
#define __ISG_IMAGE_READ_HELPER(ACCESS)                                                            \
  static inline __attribute__((overloadable)) uint4 __isg_image_raw_element(ACCESS image2d_t img,  \
                                                                            int2 ec, int type) {   \
    /* CLAMP_TO_EDGE by hand: sampler-less reads exist for read_only and read_write alike. */      \
    ec = clamp(ec, (int2)(0, 0), (int2)(get_image_width(img) - 1, get_image_height(img) - 1));     \
    if (__isg_image_is_float(type)) return __isg_image_raw_from_float(read_imagef(img, ec), type); \
    if (__isg_image_is_signed(type)) return as_uint4(read_imagei(img, ec));                        \
    return read_imageui(img, ec);                                                                  \
  }                                                                                                \
  static inline __attribute__((overloadable)) ulong __isg_image_read_bytes(ACCESS image2d_t img,   \
                                                                           int bx, int y, int n) { \
    /* Element by element and channel by channel (a read touches one element when it is as wide    \
       as the element, which is the common case): each channel overlapping bytes [bx, bx + n)      \
       lands at its byte position. Positions use the unclamped element, so a clamped one is        \
       replicated byte for byte. */                                                                \
    int order = get_image_channel_order(img), type = get_image_channel_data_type(img);             \
    int cs = __isg_image_channel_bytes(type), nch = __isg_image_channels(order), es = cs * nch;    \
    ulong r = 0;                                                                                   \
    int last = __isg_floor_div(bx + n - 1, es);                                                    \
    for (int e = __isg_floor_div(bx, es); e <= last; ++e) {                                        \
      uint comp[4];                                                                                \
      vstore4(__isg_image_raw_element(img, (int2)(e, y), type), 0, comp);                          \
      for (int c = 0; c < nch; ++c) {                                                              \
        int at = e * es + c * cs - bx; /* the channel's first byte, relative to bx */              \
        if (at + cs <= 0 || at >= n) continue;                                                     \
        ulong ch = (ulong)(comp[__isg_image_component(order, c)] & __isg_image_mask(cs));          \
        r |= at >= 0 ? ch << (8 * at) : ch >> (-8 * at);                                           \
      }                                                                                            \
    }                                                                                              \
    return n >= 8 ? r : r & ((1ul << (8 * n)) - 1ul);                                              \
  }
#define __ISG_IMAGE_WRITE_HELPER(ACCESS)                                                           \
  static inline __attribute__((overloadable)) void __isg_image_write_bytes(ACCESS image2d_t img,   \
                                                                           int bx, int y, int n,   \
                                                                           ulong bytes) {          \
    int order = get_image_channel_order(img), type = get_image_channel_data_type(img);             \
    int nch = __isg_image_channels(order), cs = __isg_image_channel_bytes(type), es = cs * nch;    \
    if (y < 0 || y >= get_image_height(img) || !__isg_image_writable(type)) return;                \
    if (__isg_floor_div(bx, es) * es != bx) return;                                                \
    for (int off = 0; off + es <= n; off += es) {                                                  \
      int e = (bx + off) / es;                                                                     \
      if (e < 0 || e >= get_image_width(img)) continue;                                            \
      uint comp[4] = {0, 0, 0, 0};                                                                 \
      for (int c = 0; c < nch; ++c) {                                                              \
        uint raw = (uint)(bytes >> (8 * (off + c * cs))) & __isg_image_mask(cs);                   \
        if (__isg_image_is_signed(type) && cs < 4 && (raw >> (8 * cs - 1)))                        \
          raw |= ~__isg_image_mask(cs);                                                            \
        comp[__isg_image_component(order, c)] = raw;                                               \
      }                                                                                            \
      uint4 v = vload4(0, comp);                                                                   \
      if (__isg_image_is_float(type))                                                              \
        write_imagef(img, (int2)(e, y), __isg_image_float_from_raw(v, type));                      \
      else if (__isg_image_is_signed(type))                                                        \
        write_imagei(img, (int2)(e, y), as_int4(v));                                               \
      else                                                                                         \
        write_imageui(img, (int2)(e, y), v);                                                       \
    }                                                                                              \
  }

__ISG_IMAGE_READ_HELPER(read_only)
__ISG_IMAGE_WRITE_HELPER(write_only)
#if __OPENCL_C_VERSION__ >= 200 && (__OPENCL_C_VERSION__ < 300 || defined(__opencl_c_read_write_images))
#define __ISG_HAVE_READ_WRITE_IMAGES 1
__ISG_IMAGE_READ_HELPER(read_write)
__ISG_IMAGE_WRITE_HELPER(read_write)
#endif
#endif /* __IMAGE_SUPPORT__ */

#endif
