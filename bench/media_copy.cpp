// SPDX-License-Identifier: MIT
// Benchmark 9: media block IO (cl_intel_media_block_io). An image copy in which every sub-group
// moves one region with intel_sub_group_media_block_read_* + _write_*, through the layer,
// against a plain OpenCL image copy of the same shape: each work-item reads and writes the very
// texels the media functions give it (region element k*S + lane), with read_imageui /
// write_imageui. Bandwidth counts bytes read + written. Goal: layer >= 0.90x plain (the layer
// reaches texels through the same image functions, plus the raw-bit bookkeeping of
// builtins-cl/common/75-image.cl). The block_* cases do the same with cl_intel_subgroups' block
// IO on images (intel_sub_group_block_read/write*(image, byte_coord)): member i's k-th value is
// the element at column i of row k, the media region's element k*16 + i for a 16-element row.
#include <cstring>

#include "common/cl_bench.h"

using namespace isgb;

namespace {

constexpr std::size_t kWorkGroup = 256;
constexpr unsigned kS = 16;

// One case: a function of `element` x `vec`, a region of `width` elements by `height` rows
// (width x height == S x vec, so the region is exactly what the sub-group holds), on an image
// of `order`/`type` whose element is `texelBytes` wide.
struct MediaCase {
  const char* name;
  const char* element;
  const char* suffix;  // uc, us, ui
  unsigned elementBytes, vec, width, height;
  cl_channel_order order;
  cl_channel_type type;
  unsigned texelBytes;
  bool block = false;  // block IO on images (W = 16, H = vec) instead of media block IO
};
const MediaCase kCases[] = {
    {"media_uc16/R8/16x16", "uchar", "uc", 1, 16, 16, 16, CL_R, CL_UNSIGNED_INT8, 1},
    {"media_us8/R16/16x8", "ushort", "us", 2, 8, 16, 8, CL_R, CL_UNSIGNED_INT16, 2},
    {"media_ui4/R32/4x16", "uint", "ui", 4, 4, 4, 16, CL_R, CL_UNSIGNED_INT32, 4},
    {"media_ui4/RGBA8/4x16", "uint", "ui", 4, 4, 4, 16, CL_RGBA, CL_UNSIGNED_INT8, 4},
    {"block_uc16/R8/16x16", "uchar", "_uc", 1, 16, 16, 16, CL_R, CL_UNSIGNED_INT8, 1, true},
    {"block_us8/R16/16x8", "ushort", "_us", 2, 8, 16, 8, CL_R, CL_UNSIGNED_INT16, 2, true},
    {"block_ui4/R32/16x4", "uint", "", 4, 4, 16, 4, CL_R, CL_UNSIGNED_INT32, 4, true},
};

std::string vec(const MediaCase& c) { return std::string(c.element) + std::to_string(c.vec); }

// The tile of sub-group `sg` in an image `tilesX` regions wide: its top-left byte offset.
const char* kTile =
    "  const uint sg = get_global_id(0) / 16u;\n"
    "  const uint tilesX = (uint)(get_image_width(src) * TEXEL) / (W * ELEM);\n"
    "  const int2 at = (int2)((sg % tilesX) * W * ELEM, (sg / tilesX) * H);\n";

std::string defines(const MediaCase& c) {
  return "#define W " + std::to_string(c.width) + "u\n#define H " + std::to_string(c.height) +
         "u\n#define ELEM " + std::to_string(c.elementBytes) + "u\n#define TEXEL " +
         std::to_string(c.texelBytes) + "u\n";
}

std::string intelSource(const MediaCase& c) {
  const std::string sfx = c.suffix + std::to_string(c.vec);
  if (c.block)
    return defines(c) + "__attribute__((intel_reqd_sub_group_size(16)))\n"
           "__kernel void copy(__read_only image2d_t src, __write_only image2d_t dst) {\n" +
           kTile + "  " + vec(c) + " v = intel_sub_group_block_read" + sfx +
           "(src, at);\n  intel_sub_group_block_write" + sfx + "(dst, at, v);\n}\n";
  return defines(c) + "__attribute__((intel_reqd_sub_group_size(16)))\n"
         "__kernel void copy(__read_only image2d_t src, __write_only image2d_t dst) {\n" +
         kTile + "  " + vec(c) + " v = intel_sub_group_media_block_read_" + sfx +
         "(at, W, H, src);\n  intel_sub_group_media_block_write_" + sfx +
         "(at, W, H, v, dst);\n}\n";
}

// The same texels per work-item: element e = k*16 + lane of the region is at byte
// at.x + (e % W) * ELEM of row at.y + e / W, i.e. ELEM / TEXEL texels (or one texel's part).
std::string plainSource(const MediaCase& c) {
  std::string s = defines(c) +
                  "__kernel void copy(__read_only image2d_t src, __write_only image2d_t dst) {\n" +
                  kTile + "  const uint lane = get_local_id(0) % 16u;\n";
  s += "  for (uint k = 0; k < " + std::to_string(c.vec) + "u; ++k) {\n"
       "    const uint e = k * 16u + lane;\n"
       "    const int x = (at.x + (int)((e % W) * ELEM)) / (int)TEXEL, y = at.y + (int)(e / W);\n"
       "    for (uint t = 0; t < ELEM / TEXEL; ++t)\n"
       "      write_imageui(dst, (int2)(x + (int)t, y), read_imageui(src, (int2)(x + (int)t, y)));\n"
       "  }\n}\n";
  return s;
}

struct Image {
  cl_mem mem = nullptr;
  ~Image() {
    if (mem) clReleaseMemObject(mem);
  }
};

cl_mem makeImage(const Cl& cl, const MediaCase& c, std::size_t widthBytes, std::size_t height,
                 const void* init) {
  cl_image_format fmt{c.order, c.type};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = widthBytes / c.texelBytes;
  desc.image_height = height;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateImage(cl.context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), &fmt,
                           &desc, const_cast<void*>(init), &err);
  check(err, "clCreateImage");
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("media", "media block read/write image copy bandwidth", "GB/s", opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, "plain"});
    const std::size_t widthBytes = opt.smoke ? 512 : 8192, height = opt.smoke ? 256 : 8192;
    const int warm = warmups(opt, 3), nrep = reps(opt, 20);
    const std::size_t bytes = widthBytes * height;
    r.config("bytes", static_cast<double>(bytes));
    r.config("reps", nrep);
    std::vector<uint8_t> host(bytes), got(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
    // Times `k` copying `src` into `dst` (images of `texelBytes` elements), checked once against
    // the source first.
    auto timeCopy = [&](const std::string& caseName, const std::string& variant, cl_kernel k,
                        cl_mem src, cl_mem dst, unsigned texelBytes, size_t* g, size_t* l,
                        Timing timing) {
      setArg(k, 0, src);
      setArg(k, 1, dst);
      checkAndTime(cl, &r, caseName, variant, k, 1, g, l, warm, nrep, 2.0 * double(bytes), 1e9,
                   [&]() -> std::string {
                     size_t origin[3] = {0, 0, 0};
                     size_t region[3] = {widthBytes / texelBytes, height, 1};
                     check(clEnqueueReadImage(cl.queue, dst, CL_TRUE, origin, region, 0, 0,
                                              got.data(), 0, nullptr, nullptr),
                           "clEnqueueReadImage");
                     return std::memcmp(got.data(), host.data(), bytes) == 0
                                ? ""
                                : "the copy differs from the source";
                   },
                   timing);
    };
    for (const MediaCase& c : kCases) {
      if (!r.wanted(c.name)) continue;
      Programs programs(cl);
      programs.build(kLayer, intelSource(c),
                     "the media program did not build (is OPENCL_LAYERS set, and does the "
                     "device have images?): ",
                     3);
      programs.build("plain", plainSource(c), "build failed: ", 3);
      Image src;
      src.mem = makeImage(cl, c, widthBytes, height, host.data());
      const std::size_t tiles = (widthBytes / (c.width * c.elementBytes)) * (height / c.height);
      size_t g = tiles * kS, l = kWorkGroup;
      programs.each(&r, c.name, [&](const std::string& variant, cl_program p) {
        Image dst;  // a fresh one per variant: a copy left by the one before proves nothing
        dst.mem = makeImage(cl, c, widthBytes, height, nullptr);
        cl_kernel k = kernel(p, "copy");
        timeCopy(c.name, variant, k, src.mem, dst.mem, c.texelBytes, &g, &l, Timing::Event);
        clReleaseKernel(k);
      });
      r.ratio(c.name, "layer/plain", kLayer, "plain", RatioKind::Speed, 0.90);
    }

    // What the layer's image stand-ins cost (layer/memory/image_views.h), no goal, in host wall time per
    // launch (the event of such a launch is its last copy's): the R8 media copy on
    // an R SNORM_INT8 source, whose bits the layer moves through a raw-bits view (copied in
    // before each launch), against the same kernel on the R UINT8 image; and a block IO copy
    // into a read_write destination, which on a device without read-write images is a buffer
    // of its texels copied in and back around each launch, against a write_only destination.
    const MediaCase& r8 = kCases[0];
    const std::string views = "stand-in/media_uc16/R_SNORM8", rw = "stand-in/block/R32_read_write";
    if (r.wanted(views)) {
      Programs programs(cl);
      programs.build(kLayer, intelSource(r8), "the media program did not build: ", 3);
      programs.build("layer-exact", intelSource(r8), "the media program did not build: ", 3);
      MediaCase snorm = r8;
      snorm.type = CL_SNORM_INT8;
      const std::size_t tiles = (widthBytes / (r8.width * r8.elementBytes)) * (height / r8.height);
      size_t g = tiles * kS, l = kWorkGroup;
      programs.each(&r, views, [&](const std::string& variant, cl_program p) {
        const MediaCase& c = variant == kLayer ? snorm : r8;
        Image src, dst;
        src.mem = makeImage(cl, c, widthBytes, height, host.data());
        dst.mem = makeImage(cl, c, widthBytes, height, nullptr);
        cl_kernel k = kernel(p, "copy");
        timeCopy(views, variant, k, src.mem, dst.mem, c.texelBytes, &g, &l, Timing::Wall);
        clReleaseKernel(k);
      });
      r.ratio(views, "snorm/uint", kLayer, "layer-exact", RatioKind::Speed, 0.0);
    }
    if (r.wanted(rw)) {
      auto blockCopy = [](const char* dstAccess) {
        return std::string("__attribute__((intel_reqd_sub_group_size(16)))\n"
                           "__kernel void copy(__read_only image2d_t src, ") +
               dstAccess + " image2d_t dst) {\n"
               "  const uint sg = get_global_id(0) / 16u, perRow = get_image_width(src) / 16u;\n"
               "  const int2 at = (int2)((sg % perRow) * 64u, (sg / perRow) * 4u);\n"
               "  intel_sub_group_block_write4(dst, at, intel_sub_group_block_read4(src, at));\n"
               "}\n";
      };
      Programs programs(cl);
      const char* opts = "-cl-std=CL2.0";
      programs.build(kLayer, blockCopy("__read_write"), "the read_write copy did not build: ", 3,
                     opts);
      programs.build("layer-write-only", blockCopy("__write_only"), "build failed: ", 3, opts);
      const MediaCase& r32 = kCases[2];
      size_t g = (widthBytes / 64) * (height / 4) * kS, l = kWorkGroup;
      programs.each(&r, rw, [&](const std::string& variant, cl_program p) {
        Image src, dst;
        src.mem = makeImage(cl, r32, widthBytes, height, host.data());
        dst.mem = makeImage(cl, r32, widthBytes, height, nullptr);
        cl_kernel k = kernel(p, "copy");
        timeCopy(rw, variant, k, src.mem, dst.mem, r32.texelBytes, &g, &l, Timing::Wall);
        clReleaseKernel(k);
      });
      r.ratio(rw, "read_write/write_only", kLayer, "layer-write-only", RatioKind::Speed, 0.0);
    }
    return r.finish();
  });
}
