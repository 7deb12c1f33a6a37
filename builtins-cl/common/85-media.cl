/* SPDX-License-Identifier: MIT */
/*
 * cl_intel_media_block_io (table rows ISG_MEDIA, family `media`). The region of `width`
 * elements (bytes for _uc, words for _us, dwords for _ui) by `height` rows at byte offset
 * src_byte_offset, taken in row-major order, is re-organised as rows of S elements: member i's
 * k-th value is region element k*S + i, i.e. row (k*S + i) / width, column (k*S + i) % width.
 * Elements past the region (its area is smaller than S x the vector width) are undefined for
 * reads (0 here) and not written; region elements past S x the vector width are dropped. No
 * member needs another's data, so every strategy runs the same code: each work-item reads or
 * writes its own elements through the raw image access of 75-image.cl, which replicates the
 * nearest edge element for reads outside the image (the spec's rule when the image element is
 * no wider than the function's) and drops writes outside it.
 * The rewriter has checked that width and height are compile-time constants of the spec's
 * table, so after inlining the divisions below fold away.
 */
#if defined(ISG_NEED_media) && defined(__IMAGE_SUPPORT__)

#define __ISG_MEDIA_READ(rname, E, W, ACCESS)                                                      \
  __ISG_OVL __ISG_VEC_##W(E) __isg_##rname(__isg_ctx_t* ctx, int2 offset, int width, int height,   \
                                           ACCESS image2d_t img) {                                 \
    E v[W];                                                                                        \
    const int area = width * height;                                                               \
    for (int k = 0; k < W; ++k) {                                                                  \
      const int e = k * (int)ctx->S + (int)ctx->sglid;                                             \
      v[k] = e < area ? (E)__isg_image_read_bytes(img, offset.x + (e % width) * (int)sizeof(E),    \
                                                  offset.y + e / width, (int)sizeof(E))            \
                      : (E)0;                                                                      \
    }                                                                                              \
    return __ISG_VLOAD_##W(v);                                                                     \
  }
#define __ISG_MEDIA_WRITE(wname, E, W, ACCESS)                                                     \
  __ISG_OVL void __isg_##wname(__isg_ctx_t* ctx, int2 offset, int width, int height,               \
                               __ISG_VEC_##W(E) texels, ACCESS image2d_t img) {                    \
    E v[W];                                                                                        \
    __ISG_VSTORE_##W(texels, v);                                                                   \
    const int area = width * height;                                                               \
    for (int k = 0; k < W; ++k) {                                                                  \
      const int e = k * (int)ctx->S + (int)ctx->sglid;                                             \
      if (e < area)                                                                                \
        __isg_image_write_bytes(img, offset.x + (e % width) * (int)sizeof(E), offset.y + e / width, \
                                (int)sizeof(E), (ulong)v[k]);                                      \
    }                                                                                              \
  }

#ifdef __ISG_HAVE_READ_WRITE_IMAGES
#define __ISG_MEDIA_RW(rname, wname, E, W)                                                         \
  __ISG_MEDIA_READ(rname, E, W, read_write) __ISG_MEDIA_WRITE(wname, E, W, read_write)
#else
#define __ISG_MEDIA_RW(rname, wname, E, W)
#endif

#define __ISG_MEDIA_DEFS(rname, wname, ext, E, W)                                                  \
  __ISG_MEDIA_READ(rname, E, W, read_only)                                                         \
  __ISG_MEDIA_WRITE(wname, E, W, write_only)                                                       \
  __ISG_MEDIA_RW(rname, wname, E, W)

ISG_MEDIA_BLOCKS(__ISG_MEDIA_DEFS)

#endif
