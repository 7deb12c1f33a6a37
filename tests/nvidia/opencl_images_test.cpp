// SPDX-License-Identifier: MIT
// OpenCL C images on every build path, against a host model of the spec: sampler-less and
// sampled reads (integer and float coordinates, clamp-to-edge, clamp to the border colour,
// normalised repeat, linear filtering), writes with the channel order applied, the size and
// format queries, and array, 1D, buffer and 3D images. The program also block-reads one image
// with an Intel builtin, so the layer rewrites it: on NVIDIA it then builds through NVIDIA's
// compiler (auto), the layer's own front end (ISG_NVIDIA_FRONTEND=layer, run-frontend.sh) or,
// from SPIR-V, the layer's PTX (run-spirv.sh), all of which this test checks the same way.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

constexpr int kW = 16, kH = 5;  // the 2D images; one sub-group of 16 per row for the block read

cl_mem image(cl_channel_order order, cl_channel_type type, cl_mem_object_type kind, size_t w, size_t h,
             size_t d, const void* data, cl_mem buffer = nullptr) {
  cl_image_format format{order, type};
  cl_image_desc desc{};
  desc.image_type = kind;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_depth = kind == CL_MEM_OBJECT_IMAGE3D ? d : 0;
  desc.image_array_size = kind == CL_MEM_OBJECT_IMAGE2D_ARRAY || kind == CL_MEM_OBJECT_IMAGE1D_ARRAY ? d : 0;
  desc.buffer = buffer;
  cl_int err = CL_SUCCESS;
  const cl_mem_flags flags = buffer ? CL_MEM_READ_WRITE : data ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE;
  cl_mem m = clCreateImage(env().context, flags, &format, &desc, buffer ? nullptr : const_cast<void*>(data), &err);
  EXPECT_EQ(err, CL_SUCCESS) << "image of order " << order << ", type " << type << ", kind " << kind;
  return m;
}

template <class T>
std::vector<T> readImage(cl_mem m, size_t w, size_t h, size_t d, size_t perTexel) {
  std::vector<T> out(w * h * d * perTexel);
  const size_t origin[3] = {0, 0, 0}, region[3] = {w, h, d};
  EXPECT_EQ(clEnqueueReadImage(env().queue, m, CL_TRUE, origin, region, 0, 0, out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  return out;
}

template <class T>
cl_mem buffer(std::vector<T>& v) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T), v.data(), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

template <class T>
void readBuffer(cl_mem m, std::vector<T>& v) {
  EXPECT_EQ(clEnqueueReadBuffer(env().queue, m, CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
}

// The kernels; W and H come in as macros. `reads` needs the sub-group of 16 only for the Intel
// block read; the others use none.
constexpr const char* kSource = R"(
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__constant sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__constant sampler_t linear = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

// An image through a function. (No sampler in it: llvm-spirv 15 fails on a sampler in a
// function beside a sampler argument at -O0.)
float4 throughHelper(read_only image2d_t img, int2 c) {
  return read_imagef(img, clamp(c, (int2)(0, 0), get_image_dim(img) - 1));
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void reads(read_only image2d_t rgba, read_only image2d_t bgra, read_only image2d_t rf,
                  read_only image2d_t i16, read_only image2d_t u32, sampler_t repeat,
                  global float4* f, global int4* i, global uint* u, global int* q) {
  const int x = get_global_id(0), y = get_global_id(1), at = y * W + x;
  f[at * 6 + 0] = read_imagef(rgba, (int2)(x, y));
  f[at * 6 + 1] = read_imagef(bgra, (int2)(x, y));
  f[at * 6 + 2] = throughHelper(rgba, (int2)(x - 3, y + 4));
  f[at * 6 + 3] = read_imagef(rgba, border, (int2)(x - 3, y + 4));
  f[at * 6 + 4] = read_imagef(bgra, repeat, (float2)((x + 0.5f) / W + 1.0f, (y + 0.5f) / H - 1.0f));
  f[at * 6 + 5] = read_imagef(rf, linear, (float2)(x + 0.75f, y + 0.5f));
  i[at] = read_imagei(i16, edge, (float2)(x + 0.5f, y + 0.5f));
  u[at * 2] = read_imageui(u32, (int2)(x, y)).x;
  u[at * 2 + 1] = intel_sub_group_block_read(u32, (int2)(0, y));
  if (at == 0) {
    q[0] = get_image_width(rgba);
    q[1] = get_image_height(bgra);
    q[2] = get_image_channel_order(bgra);
    q[3] = get_image_channel_data_type(i16);
    q[4] = get_image_dim(rf).x * 100 + get_image_dim(rf).y;
    q[5] = get_image_channel_order(rf);
  }
}

kernel void writes(write_only image2d_t wf, write_only image2d_t wb, write_only image2d_t wi,
                   write_only image2d_t wu, global const float4* src, global int* q) {
  const int x = get_global_id(0), y = get_global_id(1), at = y * W + x;
  const float4 v = src[at];
  write_imagef(wf, (int2)(x, y), v);
  write_imagef(wb, (int2)(x, y), v);
  write_imagei(wi, (int2)(x, y), convert_int4(v * 1000.0f) - 500);
  write_imageui(wu, (int2)(x, y), (uint4)(at * 7 + 1, 5, 6, 7));
  if (at == 0) {
    q[0] = get_image_width(wf);
    q[1] = get_image_height(wb);
    q[2] = get_image_channel_order(wb);
    q[3] = get_image_channel_data_type(wi);
    q[4] = get_image_dim(wu).x * 100 + get_image_dim(wu).y;
  }
}

kernel void shapes(read_only image2d_array_t arr, read_only image1d_t one, read_only image1d_buffer_t buf,
                   read_only image3d_t vol, read_only image1d_array_t arr1, write_only image2d_array_t warr,
                   write_only image1d_t wone, write_only image1d_buffer_t wbuf, global float4* f, global int* q) {
  const int g = get_global_id(0), x = g % 4, y = (g / 4) % 3, z = g / 12;
  f[g * 6 + 0] = read_imagef(arr, (int4)(x, y, z + 1, 0));
  f[g * 6 + 1] = read_imagef(arr, edge, (float4)(x + 0.5f, y + 0.5f, z + 0.6f, 0.0f));
  f[g * 6 + 2] = read_imagef(one, g % 8);
  f[g * 6 + 3] = read_imagef(buf, g % 8);
  f[g * 6 + 4] = read_imagef(vol, edge, (int4)(x, y, z, 0));
  f[g * 6 + 5] = read_imagef(arr1, (int2)(g % 8, z));
  write_imagef(warr, (int4)(x, y, z, 0), (float4)(g, x, y, z));
  if (g < 8) write_imagef(wone, g, (float4)(g * 2, 1, 2, 3));
  if (g < 8) write_imagef(wbuf, g, (float4)(g * 3, 4, 5, 6));
  if (g == 0) {
    q[0] = (int)get_image_array_size(arr);
    q[1] = get_image_depth(vol);
    q[2] = get_image_width(one);  // (PoCL 3.1 has no get_image_width of an image1d_buffer_t)
    q[3] = get_image_dim(vol).z;
    q[4] = (int)get_image_array_size(arr1);
    q[5] = get_image_height(arr);
    q[6] = (int)get_image_array_size(warr);
    q[7] = get_image_width(wone);
  }
}
)";

float unorm8(uint8_t b) { return float(b) / 255.0f; }

TEST(OpenClLibrary, ImagesMatchTheHost) {
  ISG_REQUIRE_ENV();
  if (!isgtest::programsTakeImages()) GTEST_SKIP() << "the device's programs take no images";
  const std::string options = "-DW=" + std::to_string(kW) + " -DH=" + std::to_string(kH);
  for (const char* std : {"", " -cl-std=CL1.2", " -cl-std=CL2.0"}) {
    SCOPED_TRACE(std::string("options ") + options + std);
    std::string log;
    cl_program p = isgtest::buildProgram(kSource, options + std, &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    constexpr int kN = kW * kH;

    // reads
    std::vector<uint8_t> rgba(kN * 4), bgra(kN * 4);
    std::vector<float> rf(kN);
    std::vector<int16_t> i16(kN * 4);
    std::vector<uint32_t> u32(kN);
    for (int t = 0; t < kN; ++t) {
      for (int c = 0; c < 4; ++c) {
        rgba[t * 4 + c] = uint8_t(t * 4 + c * 61 + 3);
        bgra[t * 4 + c] = uint8_t(t * 7 + c * 37 + 11);
      }
      rf[t] = float(t % 13) * 0.125f - 0.5f;
      for (int c = 0; c < 4; ++c) i16[t * 4 + c] = int16_t(t * 301 - 9000 + c * 4099);
      u32[t] = 0x9e3779b9u * uint32_t(t + 1);
    }
    cl_mem irgba = image(CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, rgba.data());
    cl_mem ibgra = image(CL_BGRA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, bgra.data());
    cl_mem irf = image(CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, rf.data());
    cl_mem irg = image(CL_RGBA, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, i16.data());
    cl_mem iu = image(CL_R, CL_UNSIGNED_INT32, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, u32.data());
    cl_sampler repeat = clCreateSampler(env().context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<float> f(kN * 6 * 4);
    std::vector<int32_t> iv(kN * 4), q(8, -1);
    std::vector<uint32_t> u(kN * 2);
    cl_mem bf = buffer(f), bi = buffer(iv), bu = buffer(u), bq = buffer(q);
    cl_kernel k = clCreateKernel(p, "reads", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, irgba, ibgra, irf, irg, iu, repeat, bf, bi, bu, bq));
    const size_t global2[2] = {kW, kH}, local2[2] = {16, 1};
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global2, local2, 0, nullptr, nullptr));
    readBuffer(bf, f);
    readBuffer(bi, iv);
    readBuffer(bu, u);
    readBuffer(bq, q);
    auto rgbaAt = [&](int x, int y, int c) {
      x = std::min(std::max(x, 0), kW - 1);
      y = std::min(std::max(y, 0), kH - 1);
      return unorm8(rgba[(y * kW + x) * 4 + c]);
    };
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        SCOPED_TRACE("reads at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
        const int at = y * kW + x;
        const float* r = &f[at * 24];
        static const int bgraChannel[4] = {2, 1, 0, 3};  // component c is memory channel bgraChannel[c]
        const bool outside = x - 3 < 0 || y + 4 >= kH;
        for (int c = 0; c < 4; ++c) {
          EXPECT_NEAR(r[c], rgbaAt(x, y, c), 1e-6f) << "sampler-less, component " << c;
          EXPECT_NEAR(r[4 + c], unorm8(bgra[at * 4 + bgraChannel[c]]), 1e-6f) << "BGRA, component " << c;
          EXPECT_NEAR(r[8 + c], rgbaAt(x - 3, y + 4, c), 1e-6f) << "clamp to edge, component " << c;
          EXPECT_NEAR(r[12 + c], outside ? 0.0f : rgbaAt(x - 3, y + 4, c), 1e-6f) << "clamp, component " << c;
          EXPECT_NEAR(r[16 + c], unorm8(bgra[at * 4 + bgraChannel[c]]), 1e-6f) << "repeat, component " << c;
        }
        const float lin = 0.75f * rf[at] + 0.25f * rf[y * kW + std::min(x + 1, kW - 1)];
        EXPECT_NEAR(r[20], lin, 2e-3f) << "linear filtering";
        EXPECT_EQ(r[21], 0.0f);
        EXPECT_EQ(r[22], 0.0f);
        EXPECT_EQ(r[23], 1.0f);
        for (int c = 0; c < 4; ++c) EXPECT_EQ(iv[at * 4 + c], i16[at * 4 + c]) << "int16, component " << c;
        EXPECT_EQ(u[at * 2], u32[at]);
        EXPECT_EQ(u[at * 2 + 1], u32[at]) << "intel_sub_group_block_read, lane " << x;
      }
    EXPECT_EQ(q[0], kW);
    EXPECT_EQ(q[1], kH);
    EXPECT_EQ(q[2], CL_BGRA);
    EXPECT_EQ(q[3], CL_SIGNED_INT16);
    EXPECT_EQ(q[4], kW * 100 + kH);
    EXPECT_EQ(q[5], CL_R);
    clReleaseKernel(k);

    // writes
    std::vector<float> src(kN * 4);
    for (int t = 0; t < kN * 4; ++t) src[t] = (float((t * 53) % 251) + 0.25f) / 255.0f;
    cl_mem wf = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, nullptr);
    cl_mem wb = image(CL_BGRA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, nullptr);
    cl_mem wi = image(CL_RGBA, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, nullptr);
    cl_mem wu = image(CL_R, CL_UNSIGNED_INT32, CL_MEM_OBJECT_IMAGE2D, kW, kH, 1, nullptr);
    cl_mem bsrc = buffer(src);
    std::fill(q.begin(), q.end(), -1);
    ISG_CL_CHECK(clEnqueueWriteBuffer(env().queue, bq, CL_TRUE, 0, q.size() * 4, q.data(), 0, nullptr, nullptr));
    k = clCreateKernel(p, "writes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, wf, wb, wi, wu, bsrc, bq));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global2, local2, 0, nullptr, nullptr));
    const std::vector<float> gotF = readImage<float>(wf, kW, kH, 1, 4);
    const std::vector<uint8_t> gotB = readImage<uint8_t>(wb, kW, kH, 1, 4);
    const std::vector<int16_t> gotI = readImage<int16_t>(wi, kW, kH, 1, 4);
    const std::vector<uint32_t> gotU = readImage<uint32_t>(wu, kW, kH, 1, 1);
    readBuffer(bq, q);
    for (int t = 0; t < kN; ++t) {
      SCOPED_TRACE("writes, texel " + std::to_string(t));
      for (int c = 0; c < 4; ++c) {
        const float v = src[t * 4 + c];
        EXPECT_EQ(gotF[t * 4 + c], v) << "RGBA float, component " << c;
        // BGRA memory holds blue, green, red, alpha: component c lands in channel {2,1,0,3}[c].
        static const int channel[4] = {2, 1, 0, 3};
        EXPECT_EQ(gotB[t * 4 + channel[c]], uint8_t(std::lround(v * 255.0f))) << "BGRA unorm8, component " << c;
        EXPECT_EQ(gotI[t * 4 + c], int16_t(int(v * 1000.0f) - 500)) << "RGBA int16, component " << c;
      }
      EXPECT_EQ(gotU[t], uint32_t(t * 7 + 1));
    }
    EXPECT_EQ(q[0], kW);
    EXPECT_EQ(q[1], kH);
    EXPECT_EQ(q[2], CL_BGRA);
    EXPECT_EQ(q[3], CL_SIGNED_INT16);
    EXPECT_EQ(q[4], kW * 100 + kH);
    clReleaseKernel(k);

    // arrays, 1D, buffer and 3D images
    constexpr int kLayers = 3, kItems = 24;
    std::vector<float> arr(4 * 3 * kLayers * 4), one(8 * 4), vol(4 * 3 * 2), arr1(8 * 2 * 4);
    for (size_t t = 0; t < arr.size(); ++t) arr[t] = float(t) * 0.5f;
    for (size_t t = 0; t < one.size(); ++t) one[t] = float(t) + 1000.0f;
    for (size_t t = 0; t < vol.size(); ++t) vol[t] = float(t) * -3.0f;
    for (size_t t = 0; t < arr1.size(); ++t) arr1[t] = float(t) * 0.25f + 7.0f;
    std::vector<float> bufTexels(one);
    for (float& v : bufTexels) v = -v;
    cl_mem backing = buffer(bufTexels);
    cl_mem iarr = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, kLayers, arr.data());
    cl_mem ione = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D, 8, 0, 0, one.data());
    cl_mem ibuf = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_BUFFER, 8, 0, 0, nullptr, backing);
    cl_mem ivol = image(CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, vol.data());
    cl_mem iarr1 = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 2, arr1.data());
    cl_mem warr = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 2, nullptr);
    cl_mem wone = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D, 8, 0, 0, nullptr);
    std::vector<float> wbufTexels(8 * 4, -1.0f);
    cl_mem wbacking = buffer(wbufTexels);
    cl_mem wbuf = image(CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_BUFFER, 8, 0, 0, nullptr, wbacking);
    std::vector<float> fs(kItems * 6 * 4);
    cl_mem bfs = buffer(fs);
    std::fill(q.begin(), q.end(), -1);
    ISG_CL_CHECK(clEnqueueWriteBuffer(env().queue, bq, CL_TRUE, 0, q.size() * 4, q.data(), 0, nullptr, nullptr));
    k = clCreateKernel(p, "shapes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, iarr, ione, ibuf, ivol, iarr1, warr, wone, wbuf, bfs, bq));
    const size_t items = kItems;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
    readBuffer(bfs, fs);
    readBuffer(bq, q);
    const std::vector<float> gotArr = readImage<float>(warr, 4, 3, 2, 4);
    const std::vector<float> gotOne = readImage<float>(wone, 8, 1, 1, 4);
    readBuffer(wbacking, wbufTexels);
    for (int g = 0; g < kItems; ++g) {
      SCOPED_TRACE("shapes, item " + std::to_string(g));
      const int x = g % 4, y = (g / 4) % 3, z = g / 12;
      const float* r = &fs[g * 24];
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(r[c], arr[(((z + 1) * 3 + y) * 4 + x) * 4 + c]) << "2D array, integer coordinates";
        EXPECT_EQ(r[4 + c], arr[(((z + 1) * 3 + y) * 4 + x) * 4 + c]) << "2D array, layer rint(z + 0.6)";
        EXPECT_EQ(r[8 + c], one[(g % 8) * 4 + c]) << "1D";
        EXPECT_EQ(r[12 + c], bufTexels[(g % 8) * 4 + c]) << "1D buffer";
        EXPECT_EQ(r[20 + c], arr1[(z * 8 + g % 8) * 4 + c]) << "1D array";
        const float want[4] = {float(g), float(x), float(y), float(z)};
        EXPECT_EQ(gotArr[((z * 3 + y) * 4 + x) * 4 + c], want[c]) << "2D array write";
      }
      EXPECT_EQ(r[16], vol[(z * 3 + y) * 4 + x]) << "3D";
      EXPECT_EQ(r[17], 0.0f);
      EXPECT_EQ(r[19], 1.0f);
    }
    for (int g = 0; g < 8; ++g)
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(gotOne[g * 4 + c], c == 0 ? float(g * 2) : float(c)) << "1D write " << g;
        EXPECT_EQ(wbufTexels[g * 4 + c], c == 0 ? float(g * 3) : float(c + 3)) << "1D buffer write " << g;
      }
    EXPECT_EQ(q[0], kLayers);
    EXPECT_EQ(q[1], 2);
    EXPECT_EQ(q[2], 8);
    EXPECT_EQ(q[3], 2);
    EXPECT_EQ(q[4], 2);
    EXPECT_EQ(q[5], 3);
    EXPECT_EQ(q[6], 2);
    EXPECT_EQ(q[7], 8);
    clReleaseKernel(k);

    for (cl_mem m : {irgba, ibgra, irf, irg, iu, bf, bi, bu, bq, wf, wb, wi, wu, bsrc, iarr, ione, ibuf, ivol, iarr1,
                     warr, wone, bfs, backing, wbuf, wbacking})
      clReleaseMemObject(m);
    clReleaseSampler(repeat);
    clReleaseProgram(p);
  }
}

}  // namespace
