/* SPDX-License-Identifier: MIT */
/*
 * Raw bytes of a 2D image, for block IO on images (80-block.cl) and media block IO
 * (85-media.cl): both address an image by byte and read or write "without format conversion",
 * which core OpenCL C cannot do directly. The raw bits are recovered from the converted channels
 * for the formats where conversion is lossless: UNSIGNED/SIGNED_INT8/16/32, UNORM_INT8/16,
 * HALF_FLOAT, FLOAT with channel orders R, A, INTENSITY, LUMINANCE, RG, RA, RGBA, BGRA, ARGB.
 * Not recoverable (reads give approximations, writes are skipped): SNORM_INT8/16 (-MAX-1 and
 * -MAX both read as -1.0), packed UNORM_SHORT_565/555 and UNORM_INT_101010, sRGB and depth
 * formats; for those the layer passes block and media IO a raw-bits view of the image, an
 * unsigned-integer image of the same element size (exactForBlockIO in layer/image_views.cpp
 * holds the same list).
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

/* An image's format, read once per builtin call: image queries are not free on GPUs, and a
   media or block call touches up to 16 elements. `direct`: one unsigned-integer channel, whose
   read_imageui/write_imageui value is the element's bits as they are (the common media case:
   R8/R16/R32 luma and index planes), so no conversion or byte assembly is needed. */
typedef struct {
  int order, type, cs, nch, es, width, height;
  int direct; /* not bool: a bool member is not portable across OpenCL drivers' struct layouts */
  int raw;    /* the texels are in a buffer (an emulated read_write image, below) */
} __isg_image_fmt_t;
static inline bool __isg_image_is_unsigned_int(int type) {
  return type == CLK_UNSIGNED_INT8 || type == CLK_UNSIGNED_INT16 || type == CLK_UNSIGNED_INT32;
}

/* F(0) F(1) ... F(N-1): straight-line code per vector component, so private arrays are only
   ever indexed by constants (and stay in registers). */
#define __ISG_REP_1(F) F(0)
#define __ISG_REP_2(F) F(0) F(1)
#define __ISG_REP_4(F) __ISG_REP_2(F) F(2) F(3)
#define __ISG_REP_8(F) __ISG_REP_4(F) F(4) F(5) F(6) F(7)
#define __ISG_REP_16(F) __ISG_REP_8(F) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

/* The format from its four facts: channel order, channel data type, width, height. */
static inline __isg_image_fmt_t __isg_image_fmt_of(int4 facts) {
  __isg_image_fmt_t f;
  f.order = facts.x;
  f.type = facts.y;
  f.cs = __isg_image_channel_bytes(f.type);
  f.nch = __isg_image_channels(f.order);
  f.es = f.cs * f.nch;
  f.width = facts.z;
  f.height = facts.w;
  f.direct = f.nch == 1 && __isg_image_is_unsigned_int(f.type);
  f.raw = 0;
  return f;
}

/* Per access qualifier: the format, reading n (<= 8) raw bytes at (bx, y), writing them. On
   NVIDIA each size query is a TXQ, which costs about what a texel read does (docs/
   performance.md, benchmark 9): where a kernel hands its own image parameter to block or media
   IO, the layer passes the four facts as a hidden argument instead (HiddenArg::Kind::
   ImageFacts; the `facts` overloads of 80-block.cl and 85-media.cl). */
#define __ISG_IMAGE_FMT_HELPER(ACCESS)                                                             \
  static inline __attribute__((overloadable)) __isg_image_fmt_t __isg_image_fmt(ACCESS image2d_t img) {\
    return __isg_image_fmt_of((int4)(get_image_channel_order(img), get_image_channel_data_type(img),\
                                     get_image_width(img), get_image_height(img)));                \
  }
#define __ISG_IMAGE_READ_HELPER(ACCESS)                                                            \
  static inline __attribute__((overloadable)) uint4 __isg_image_raw_element(ACCESS image2d_t img,  \
                                                                            __isg_image_fmt_t f,   \
                                                                            int2 ec) {             \
    /* CLAMP_TO_EDGE by hand: sampler-less reads exist for read_only and read_write alike. */      \
    ec = clamp(ec, (int2)(0, 0), (int2)(f.width - 1, f.height - 1));                               \
    if (__isg_image_is_float(f.type)) return __isg_image_raw_from_float(read_imagef(img, ec), f.type);\
    if (__isg_image_is_signed(f.type)) return as_uint4(read_imagei(img, ec));                      \
    return read_imageui(img, ec);                                                                  \
  }                                                                                                \
  /* n (<= 8) raw bytes at byte bx of row y, element by element and channel by channel (a read     \
     touches one element when it is as wide as the element, the common case): each channel         \
     overlapping [bx, bx + n) lands at its byte position. Positions use the unclamped element,     \
     so a clamped one is replicated byte for byte. */                                              \
  static inline __attribute__((overloadable)) ulong __isg_image_read_bytes(ACCESS image2d_t img,   \
                                                                           __isg_image_fmt_t f,    \
                                                                           int bx, int y, int n) { \
    int first = __isg_floor_div(bx, f.es);                                                         \
    if (f.direct && n == f.es && first * f.es == bx) {                                             \
      uint4 v = __isg_image_raw_element(img, f, (int2)(first, y));                                 \
      return f.order == CLK_A ? v.w : v.x;                                                         \
    }                                                                                              \
    ulong r = 0;                                                                                   \
    int last = __isg_floor_div(bx + n - 1, f.es);                                                  \
    for (int e = first; e <= last; ++e) {                                                          \
      uint comp[4];                                                                                \
      vstore4(__isg_image_raw_element(img, f, (int2)(e, y)), 0, comp);                             \
      for (int c = 0; c < f.nch; ++c) {                                                            \
        int at = e * f.es + c * f.cs - bx; /* the channel's first byte, relative to bx */          \
        if (at + f.cs <= 0 || at >= n) continue;                                                   \
        ulong ch = (ulong)(comp[__isg_image_component(f.order, c)] & __isg_image_mask(f.cs));      \
        r |= at >= 0 ? ch << (8 * at) : ch >> (-8 * at);                                           \
      }                                                                                            \
    }                                                                                              \
    return n >= 8 ? r : r & ((1ul << (8 * n)) - 1ul);                                              \
  }
#define __ISG_IMAGE_WRITE_HELPER(ACCESS)                                                           \
  /* n raw bytes at byte bx of row y: whole elements inside the image only. */                     \
  static inline __attribute__((overloadable)) void __isg_image_write_bytes(ACCESS image2d_t img,   \
                                                                           __isg_image_fmt_t f,    \
                                                                           int bx, int y, int n,   \
                                                                           ulong bytes) {          \
    if (y < 0 || y >= f.height || !__isg_image_writable(f.type)) return;                           \
    if (__isg_floor_div(bx, f.es) * f.es != bx) return;                                            \
    if (f.direct && n == f.es) {                                                                   \
      int e = bx / f.es;                                                                           \
      if (e >= 0 && e < f.width) write_imageui(img, (int2)(e, y), (uint4)((uint)bytes));           \
      return;                                                                                      \
    }                                                                                              \
    for (int off = 0; off + f.es <= n; off += f.es) {                                              \
      int e = (bx + off) / f.es;                                                                   \
      if (e < 0 || e >= f.width) continue;                                                         \
      uint comp[4] = {0, 0, 0, 0};                                                                 \
      for (int c = 0; c < f.nch; ++c) {                                                            \
        uint raw = (uint)(bytes >> (8 * (off + c * f.cs))) & __isg_image_mask(f.cs);               \
        if (__isg_image_is_signed(f.type) && f.cs < 4 && (raw >> (8 * f.cs - 1)))                  \
          raw |= ~__isg_image_mask(f.cs);                                                          \
        comp[__isg_image_component(f.order, c)] = raw;                                             \
      }                                                                                            \
      uint4 v = vload4(0, comp);                                                                   \
      if (__isg_image_is_float(f.type))                                                            \
        write_imagef(img, (int2)(e, y), __isg_image_float_from_raw(v, f.type));                    \
      else if (__isg_image_is_signed(f.type))                                                      \
        write_imagei(img, (int2)(e, y), as_int4(v));                                               \
      else                                                                                         \
        write_imageui(img, (int2)(e, y), v);                                                       \
    }                                                                                              \
  }

__ISG_IMAGE_FMT_HELPER(read_only)
__ISG_IMAGE_FMT_HELPER(write_only)
__ISG_IMAGE_READ_HELPER(read_only)
__ISG_IMAGE_WRITE_HELPER(write_only)
#if __OPENCL_C_VERSION__ >= 200 && !defined(__ISG_EMULATED_RW_IMAGES) && \
    (__OPENCL_C_VERSION__ < 300 || defined(__opencl_c_read_write_images))
#define __ISG_HAVE_READ_WRITE_IMAGES 1
__ISG_IMAGE_FMT_HELPER(read_write)
__ISG_IMAGE_READ_HELPER(read_write)
__ISG_IMAGE_WRITE_HELPER(read_write)
#endif

/* The image type of an access qualifier, for the block and media definitions: `emulated` is a
   read_write image2d_t on a device without read-write images (below). */
#define __ISG_IMG(ACCESS) __ISG_IMG_##ACCESS
#define __ISG_IMG_read_only read_only image2d_t
#define __ISG_IMG_write_only write_only image2d_t
#define __ISG_IMG_read_write read_write image2d_t
#define __ISG_IMG_emulated __isg_rw_image_t
/* Unsigned-integer element access for the media fast path. */
static inline __attribute__((overloadable)) uint4 __isg_image_load_u(read_only image2d_t img, int2 c) {
  return read_imageui(img, c);
}
static inline __attribute__((overloadable)) void __isg_image_store_u(write_only image2d_t img, int2 c,
                                                                    uint4 v) {
  write_imageui(img, c, v);
}
#ifdef __ISG_HAVE_READ_WRITE_IMAGES
static inline __attribute__((overloadable)) uint4 __isg_image_load_u(read_write image2d_t img, int2 c) {
  return read_imageui(img, c);
}
static inline __attribute__((overloadable)) void __isg_image_store_u(read_write image2d_t img, int2 c,
                                                                    uint4 v) {
  write_imageui(img, c, v);
}
#endif

#ifdef __ISG_EMULATED_RW_IMAGES
/* A read_write image2d_t on a device without read-write images (NVIDIA): the rewritten kernel
   takes the image write_only (the application's argument, unused but for its place) and a
   hidden buffer holding its texels after a header of four ints (width, height, channel order,
   channel data type), which the layer fills before the launch and copies back after it
   (layer/image_views.h). Block and media IO and the size queries run on it, in the order the
   kernel's statements give, fences included: it is plain global memory. */
typedef struct {
  __global uchar* texels;
  __isg_image_fmt_t f;
} __isg_rw_image_t;
static inline __isg_rw_image_t __isg_rw_image(__global uchar* raw) {
  __isg_rw_image_t img;
  const __global int* h = (const __global int*)raw;
  img.texels = raw + 32;
  img.f.width = h[0];
  img.f.height = h[1];
  img.f.order = h[2];
  img.f.type = h[3];
  img.f.cs = __isg_image_channel_bytes(img.f.type);
  img.f.nch = __isg_image_channels(img.f.order);
  img.f.es = img.f.cs * img.f.nch;
  img.f.direct = 0;
  img.f.raw = 1;
  return img;
}
static inline __attribute__((overloadable)) __isg_image_fmt_t __isg_image_fmt(__isg_rw_image_t img) {
  return img.f;
}
/* Bytes as they are: each byte of [bx, bx + n) from its element, the element clamped to the
   image (which replicates the nearest edge element byte for byte), the row likewise. */
static inline __attribute__((overloadable)) ulong __isg_image_read_bytes(__isg_rw_image_t img,
                                                                        __isg_image_fmt_t f,
                                                                        int bx, int y, int n) {
  const int row = clamp(y, 0, f.height - 1);
  ulong r = 0;
  for (int i = 0; i < n; ++i) {
    const int e = __isg_floor_div(bx + i, f.es);
    const int at = clamp(e, 0, f.width - 1) * f.es + (bx + i - e * f.es);
    r |= (ulong)img.texels[(size_t)row * f.width * f.es + at] << (8 * i);
  }
  return r;
}
/* Whole elements inside the image only, as for real images. */
static inline __attribute__((overloadable)) void __isg_image_write_bytes(__isg_rw_image_t img,
                                                                        __isg_image_fmt_t f,
                                                                        int bx, int y, int n,
                                                                        ulong bytes) {
  if (y < 0 || y >= f.height || __isg_floor_div(bx, f.es) * f.es != bx) return;
  for (int off = 0; off + f.es <= n; off += f.es) {
    const int e = (bx + off) / f.es;
    if (e < 0 || e >= f.width) continue;
    for (int i = 0; i < f.es; ++i)
      img.texels[((size_t)y * f.width + e) * f.es + i] = (uchar)(bytes >> (8 * (off + i)));
  }
}
#ifdef __ISG_LAZY_BUILTINS
/* The size queries of every other image, declared as OpenCL C declares them: Clang's lazy
   builtin declarations (the layer's own compiles) are only looked up for a name nothing else
   declares, and the overloads below declare these names. */
#define __ISG_SIZE_QUERIES(A)                                                              \
  int __attribute__((overloadable, const)) get_image_width(A image1d_t);                   \
  int __attribute__((overloadable, const)) get_image_width(A image1d_buffer_t);            \
  int __attribute__((overloadable, const)) get_image_width(A image1d_array_t);             \
  int __attribute__((overloadable, const)) get_image_width(A image2d_t);                   \
  int __attribute__((overloadable, const)) get_image_width(A image2d_array_t);             \
  int __attribute__((overloadable, const)) get_image_height(A image2d_t);                  \
  int __attribute__((overloadable, const)) get_image_height(A image2d_array_t);            \
  int2 __attribute__((overloadable, const)) get_image_dim(A image2d_t);                    \
  int2 __attribute__((overloadable, const)) get_image_dim(A image2d_array_t);
__ISG_SIZE_QUERIES(read_only)
__ISG_SIZE_QUERIES(write_only)
#undef __ISG_SIZE_QUERIES
int __attribute__((overloadable, const)) get_image_width(read_only image3d_t);
int __attribute__((overloadable, const)) get_image_height(read_only image3d_t);
int4 __attribute__((overloadable, const)) get_image_dim(read_only image3d_t);
#if defined(cl_khr_3d_image_writes) || defined(__opencl_c_3d_image_writes)
int __attribute__((overloadable, const)) get_image_width(write_only image3d_t);
int __attribute__((overloadable, const)) get_image_height(write_only image3d_t);
int4 __attribute__((overloadable, const)) get_image_dim(write_only image3d_t);
#endif
#endif
/* The media and block fast paths are never taken for these (they test f.raw and f.direct), so
   the element access only has to compile. */
static inline __attribute__((overloadable)) uint4 __isg_image_load_u(__isg_rw_image_t img, int2 c) {
  return (uint4)(0u);
}
static inline __attribute__((overloadable)) void __isg_image_store_u(__isg_rw_image_t img, int2 c,
                                                                    uint4 v) {}
static inline __attribute__((overloadable)) int get_image_width(__isg_rw_image_t img) {
  return img.f.width;
}
static inline __attribute__((overloadable)) int get_image_height(__isg_rw_image_t img) {
  return img.f.height;
}
static inline __attribute__((overloadable)) int2 get_image_dim(__isg_rw_image_t img) {
  return (int2)(img.f.width, img.f.height);
}
#endif
#endif /* __IMAGE_SUPPORT__ */

#endif
