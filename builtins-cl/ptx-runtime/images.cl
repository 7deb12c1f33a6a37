/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL C image builtins on NVIDIA's OpenCL driver, for the layer's PTX (programs from
 * SPIR-V and the layer's OpenCL C front end; rewriter/src/ptx/ptx_images.cpp, lowerImages), in the
 * forms NVIDIA's own compiler writes (docs/design.md, "Build paths on NVIDIA"). An image or a
 * sampler reaches the PTX as a kernel parameter (.texref for read_only, .surfref for
 * write_only, .samplerref) or as a program-scope .samplerref; here it is a 64-bit handle
 * (__isg_handle), and each __isg_nvvm_<name> is the NVVM intrinsic llvm.nvvm.<name, dotted>,
 * which lowerImages puts in its place.
 *
 * Reads go through the texture unit (tex), which converts, filters, addresses and swizzles as
 * the sampler and the image's format say. Writes are formatted surface stores (sust.p), which
 * convert but store the components in memory order: the channel order is applied here.
 * A read without a sampler uses the sampler NVIDIA's compiler gives it (unnormalised, nearest,
 * CLK_ADDRESS_NONE). The layer of an array read with float coordinates is
 * rint(coordinate), saturated, as NVIDIA's compiler takes it.
 */
#if defined(cl_khr_3d_image_writes) || defined(__opencl_c_3d_image_writes)
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
#define __ISG_3D_WRITES 1
#endif
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#define __ISG_IMG_FN __attribute__((overloadable, always_inline))

ulong __attribute__((overloadable)) __isg_handle(sampler_t);
#define __ISG_HANDLE(A) \
  ulong __attribute__((overloadable)) __isg_handle(A image1d_t);        \
  ulong __attribute__((overloadable)) __isg_handle(A image1d_buffer_t); \
  ulong __attribute__((overloadable)) __isg_handle(A image1d_array_t);  \
  ulong __attribute__((overloadable)) __isg_handle(A image2d_t);        \
  ulong __attribute__((overloadable)) __isg_handle(A image2d_array_t);
__ISG_HANDLE(read_only)
__ISG_HANDLE(write_only)
#undef __ISG_HANDLE
ulong __attribute__((overloadable)) __isg_handle(read_only image3d_t);
#ifdef __ISG_3D_WRITES
ulong __attribute__((overloadable)) __isg_handle(write_only image3d_t);
#endif

/* Texture fetches: (image, sampler, coordinates as the intrinsic takes them). */
#define __ISG_TEX(G, C, ...)                                           \
  float4 __isg_nvvm_tex_##G##_v4f32_##C(ulong, ulong, __VA_ARGS__);    \
  int4 __isg_nvvm_tex_##G##_v4s32_##C(ulong, ulong, __VA_ARGS__);      \
  uint4 __isg_nvvm_tex_##G##_v4u32_##C(ulong, ulong, __VA_ARGS__);
__ISG_TEX(1d, s32, int)
__ISG_TEX(1d, f32, float)
__ISG_TEX(1d_array, s32, int, int)
__ISG_TEX(1d_array, f32, int, float)
__ISG_TEX(2d, s32, int, int)
__ISG_TEX(2d, f32, float, float)
__ISG_TEX(2d_array, s32, int, int, int)
__ISG_TEX(2d_array, f32, int, float, float)
__ISG_TEX(3d, s32, int, int, int)
__ISG_TEX(3d, f32, float, float, float)

/* Formatted surface stores: (image, coordinates, the four components' bits). */
void __isg_nvvm_sust_p_1d_v4i32_trap(ulong, int, uint4);
void __isg_nvvm_sust_p_1d_array_v4i32_trap(ulong, int, int, uint4);
void __isg_nvvm_sust_p_2d_v4i32_trap(ulong, int, int, uint4);
void __isg_nvvm_sust_p_2d_array_v4i32_trap(ulong, int, int, int, uint4);
void __isg_nvvm_sust_p_3d_v4i32_trap(ulong, int, int, int, uint4);

/* Queries, of textures (txq) and surfaces (suq): the driver answers in OpenCL's enums. */
#define __ISG_QUERY(P)                          \
  int __isg_nvvm_##P##_width(ulong);            \
  int __isg_nvvm_##P##_height(ulong);           \
  int __isg_nvvm_##P##_depth(ulong);            \
  int __isg_nvvm_##P##_array_size(ulong);       \
  int __isg_nvvm_##P##_channel_order(ulong);    \
  int __isg_nvvm_##P##_channel_data_type(ulong);
__ISG_QUERY(txq)
__ISG_QUERY(suq)

__constant sampler_t __isg_no_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

static inline int __isg_layer(float c) { return (int)convert_uint_sat_rte(c); }

/* Components in the order of the channels in memory. */
static inline uint4 __isg_memory_order(uint4 v, int order) {
  switch (order) {
    case CLK_A: return (uint4)(v.w, 0u, 0u, 0u);
    case CLK_RA: return (uint4)(v.x, v.w, 0u, 0u);
    case CLK_BGRA: return v.zyxw;
    case CLK_ARGB: return v.wxyz;
    default: return v;
  }
}

/* Reads of one geometry G: integer coordinates CI (intrinsic arguments I, parenthesised),
   float coordinates CF (F). */
#define __ISG_SPREAD(...) __VA_ARGS__
#define __ISG_READ_KIND(T, G, CI, I, CF, F, R, NAME, VT)                                          \
  VT __ISG_IMG_FN NAME(read_only T img, sampler_t s, CI c) {                                     \
    return __isg_nvvm_tex_##G##_v4##R##_s32(__isg_handle(img), __isg_handle(s), __ISG_SPREAD I);               \
  }                                                                                               \
  VT __ISG_IMG_FN NAME(read_only T img, sampler_t s, CF c) {                                     \
    return __isg_nvvm_tex_##G##_v4##R##_f32(__isg_handle(img), __isg_handle(s), __ISG_SPREAD F);               \
  }                                                                                               \
  VT __ISG_IMG_FN NAME(read_only T img, CI c) {                                                  \
    return __isg_nvvm_tex_##G##_v4##R##_s32(__isg_handle(img), __isg_handle(__isg_no_sampler), __ISG_SPREAD I);\
  }
#define __ISG_READ(T, G, CI, I, CF, F)                           \
  __ISG_READ_KIND(T, G, CI, I, CF, F, f32, read_imagef, float4)  \
  __ISG_READ_KIND(T, G, CI, I, CF, F, s32, read_imagei, int4)    \
  __ISG_READ_KIND(T, G, CI, I, CF, F, u32, read_imageui, uint4)
__ISG_READ(image1d_t, 1d, int, (c), float, (c))
__ISG_READ(image1d_array_t, 1d_array, int2, (c.y, c.x), float2, (__isg_layer(c.y), c.x))
__ISG_READ(image2d_t, 2d, int2, (c.x, c.y), float2, (c.x, c.y))
__ISG_READ(image2d_array_t, 2d_array, int4, (c.z, c.x, c.y), float4, (__isg_layer(c.z), c.x, c.y))
__ISG_READ(image3d_t, 3d, int4, (c.x, c.y, c.z), float4, (c.x, c.y, c.z))
#undef __ISG_READ
#undef __ISG_READ_KIND
#undef __ISG_SPREAD

/* image1d_buffer_t: sampler-less reads of a texture bound to the buffer (tex.1d). */
float4 __ISG_IMG_FN read_imagef(read_only image1d_buffer_t img, int c) {
  return __isg_nvvm_tex_1d_v4f32_s32(__isg_handle(img), __isg_handle(__isg_no_sampler), c);
}
int4 __ISG_IMG_FN read_imagei(read_only image1d_buffer_t img, int c) {
  return __isg_nvvm_tex_1d_v4s32_s32(__isg_handle(img), __isg_handle(__isg_no_sampler), c);
}
uint4 __ISG_IMG_FN read_imageui(read_only image1d_buffer_t img, int c) {
  return __isg_nvvm_tex_1d_v4u32_s32(__isg_handle(img), __isg_handle(__isg_no_sampler), c);
}

/* image1d_buffer_t writes: NVIDIA passes such a surface in a 64-bit register (`.param .u64 .ptr
   .surfref`, sust.p.1d_buffer), which LLVM 15 neither declares nor addresses: inline PTX on the
   parameter's value, whose declaration lowerImages has rewritten in the PTX text. */
static inline int __isg_buffer_query_order(ulong h) {
  int r;
  __asm__("suq.channel_order.b32 %0, [%1];" : "=r"(r) : "l"(h));
  return r;
}
static inline void __isg_buffer_store(ulong h, int x, uint4 v) {
  __asm__ volatile("sust.p.1d_buffer.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};"
                   :
                   : "l"(h), "r"(x), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                   : "memory");
}
void __ISG_IMG_FN write_imagef(write_only image1d_buffer_t img, int c, float4 v) {
  const ulong h = __isg_handle(img);
  __isg_buffer_store(h, c, __isg_memory_order(as_uint4(v), __isg_buffer_query_order(h)));
}
void __ISG_IMG_FN write_imagei(write_only image1d_buffer_t img, int c, int4 v) {
  const ulong h = __isg_handle(img);
  __isg_buffer_store(h, c, __isg_memory_order(as_uint4(v), __isg_buffer_query_order(h)));
}
void __ISG_IMG_FN write_imageui(write_only image1d_buffer_t img, int c, uint4 v) {
  const ulong h = __isg_handle(img);
  __isg_buffer_store(h, c, __isg_memory_order(v, __isg_buffer_query_order(h)));
}
int __ISG_IMG_FN get_image_width(write_only image1d_buffer_t img) {
  int r;
  __asm__("suq.width.b32 %0, [%1];" : "=r"(r) : "l"(__isg_handle(img)));
  return r;
}
int __ISG_IMG_FN get_image_channel_order(write_only image1d_buffer_t img) {
  return __isg_buffer_query_order(__isg_handle(img));
}
int __ISG_IMG_FN get_image_channel_data_type(write_only image1d_buffer_t img) {
  int r;
  __asm__("suq.channel_data_type.b32 %0, [%1];" : "=r"(r) : "l"(__isg_handle(img)));
  return r;
}

#define __ISG_WRITE(T, G, C, ...)                                                                 \
  void __ISG_IMG_FN write_imagef(write_only T img, C c, float4 v) {                              \
    const ulong h = __isg_handle(img);                                                            \
    __isg_nvvm_sust_p_##G##_v4i32_trap(h, __VA_ARGS__,                                           \
                                       __isg_memory_order(as_uint4(v), __isg_nvvm_suq_channel_order(h)));\
  }                                                                                               \
  void __ISG_IMG_FN write_imagei(write_only T img, C c, int4 v) {                                \
    const ulong h = __isg_handle(img);                                                            \
    __isg_nvvm_sust_p_##G##_v4i32_trap(h, __VA_ARGS__,                                           \
                                       __isg_memory_order(as_uint4(v), __isg_nvvm_suq_channel_order(h)));\
  }                                                                                               \
  void __ISG_IMG_FN write_imageui(write_only T img, C c, uint4 v) {                              \
    const ulong h = __isg_handle(img);                                                            \
    __isg_nvvm_sust_p_##G##_v4i32_trap(h, __VA_ARGS__,                                           \
                                       __isg_memory_order(v, __isg_nvvm_suq_channel_order(h)));   \
  }
__ISG_WRITE(image1d_t, 1d, int, c)
__ISG_WRITE(image1d_array_t, 1d_array, int2, c.y, c.x)
__ISG_WRITE(image2d_t, 2d, int2, c.x, c.y)
__ISG_WRITE(image2d_array_t, 2d_array, int4, c.z, c.x, c.y)
#ifdef __ISG_3D_WRITES
__ISG_WRITE(image3d_t, 3d, int4, c.x, c.y, c.z)
#endif
#undef __ISG_WRITE

/* Queries of both access qualifiers (P: txq for read_only, suq for write_only). */
#define __ISG_QUERIES(A, P, T)                                                                    \
  int __ISG_IMG_FN get_image_width(A T img) { return __isg_nvvm_##P##_width(__isg_handle(img)); } \
  int __ISG_IMG_FN get_image_channel_order(A T img) {                                            \
    return __isg_nvvm_##P##_channel_order(__isg_handle(img));                                     \
  }                                                                                               \
  int __ISG_IMG_FN get_image_channel_data_type(A T img) {                                        \
    return __isg_nvvm_##P##_channel_data_type(__isg_handle(img));                                 \
  }
#define __ISG_HEIGHT(A, P, T) \
  int __ISG_IMG_FN get_image_height(A T img) { return __isg_nvvm_##P##_height(__isg_handle(img)); }
#define __ISG_ARRAY(A, P, T)                                   \
  size_t __ISG_IMG_FN get_image_array_size(A T img) {         \
    return (size_t)__isg_nvvm_##P##_array_size(__isg_handle(img)); \
  }
#define __ISG_ALL_QUERIES(A, P)                                                                   \
  __ISG_QUERIES(A, P, image1d_t)                                                                  \
  __ISG_QUERIES(A, P, image1d_array_t)                                                            \
  __ISG_QUERIES(A, P, image2d_t)                                                                  \
  __ISG_QUERIES(A, P, image2d_array_t)                                                            \
  __ISG_HEIGHT(A, P, image2d_t)                                                                   \
  __ISG_HEIGHT(A, P, image2d_array_t)                                                             \
  __ISG_ARRAY(A, P, image1d_array_t)                                                              \
  __ISG_ARRAY(A, P, image2d_array_t)                                                              \
  int2 __ISG_IMG_FN get_image_dim(A image2d_t img) {                                             \
    const ulong h = __isg_handle(img);                                                            \
    return (int2)(__isg_nvvm_##P##_width(h), __isg_nvvm_##P##_height(h));                        \
  }                                                                                               \
  int2 __ISG_IMG_FN get_image_dim(A image2d_array_t img) {                                       \
    const ulong h = __isg_handle(img);                                                            \
    return (int2)(__isg_nvvm_##P##_width(h), __isg_nvvm_##P##_height(h));                        \
  }
#define __ISG_3D_QUERIES(A, P)                                                                    \
  __ISG_QUERIES(A, P, image3d_t)                                                                  \
  __ISG_HEIGHT(A, P, image3d_t)                                                                   \
  int __ISG_IMG_FN get_image_depth(A image3d_t img) { return __isg_nvvm_##P##_depth(__isg_handle(img)); }\
  int4 __ISG_IMG_FN get_image_dim(A image3d_t img) {                                             \
    const ulong h = __isg_handle(img);                                                            \
    return (int4)(__isg_nvvm_##P##_width(h), __isg_nvvm_##P##_height(h), __isg_nvvm_##P##_depth(h), 0);\
  }
__ISG_ALL_QUERIES(read_only, txq)
__ISG_ALL_QUERIES(write_only, suq)
__ISG_QUERIES(read_only, txq, image1d_buffer_t)
__ISG_3D_QUERIES(read_only, txq)
#ifdef __ISG_3D_WRITES
__ISG_3D_QUERIES(write_only, suq)
#endif
#undef __ISG_3D_QUERIES
#undef __ISG_ALL_QUERIES
#undef __ISG_ARRAY
#undef __ISG_HEIGHT
#undef __ISG_QUERIES

#ifdef cl_khr_fp16
/* Every half is a float: the texture unit reads half-float images as float exactly. */
#define __ISG_HALF_READ(T, CI, CF)                                                               \
  half4 __ISG_IMG_FN read_imageh(read_only T img, sampler_t s, CI c) {                           \
    return convert_half4(read_imagef(img, s, c));                                                 \
  }                                                                                               \
  half4 __ISG_IMG_FN read_imageh(read_only T img, sampler_t s, CF c) {                           \
    return convert_half4(read_imagef(img, s, c));                                                 \
  }                                                                                               \
  half4 __ISG_IMG_FN read_imageh(read_only T img, CI c) { return convert_half4(read_imagef(img, c)); }
#define __ISG_HALF_WRITE(T, C) \
  void __ISG_IMG_FN write_imageh(write_only T img, C c, half4 v) { write_imagef(img, c, convert_float4(v)); }
__ISG_HALF_READ(image1d_t, int, float)
__ISG_HALF_READ(image1d_array_t, int2, float2)
__ISG_HALF_READ(image2d_t, int2, float2)
__ISG_HALF_READ(image2d_array_t, int4, float4)
__ISG_HALF_READ(image3d_t, int4, float4)
half4 __ISG_IMG_FN read_imageh(read_only image1d_buffer_t img, int c) { return convert_half4(read_imagef(img, c)); }
__ISG_HALF_WRITE(image1d_t, int)
__ISG_HALF_WRITE(image1d_buffer_t, int)
__ISG_HALF_WRITE(image1d_array_t, int2)
__ISG_HALF_WRITE(image2d_t, int2)
__ISG_HALF_WRITE(image2d_array_t, int4)
#ifdef __ISG_3D_WRITES
__ISG_HALF_WRITE(image3d_t, int4)
#endif
#undef __ISG_HALF_READ
#undef __ISG_HALF_WRITE
#endif
