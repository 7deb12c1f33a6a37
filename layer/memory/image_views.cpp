// SPDX-License-Identifier: MIT
#include "memory/image_views.h"

#include <cstdio>
#include <iterator>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/logger.h"

namespace isg {
namespace {

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", v);
  return buf;
}

// An unsigned-integer format of `bytes` bytes per element that the context's devices take for
// 2D images, plain channel orders first (the library's fastest paths).
bool viewFormat(cl_context context, size_t bytes, cl_image_format* out) {
  static const cl_image_format kCandidates[] = {
      {CL_R, CL_UNSIGNED_INT8},     {CL_A, CL_UNSIGNED_INT8},      {CL_R, CL_UNSIGNED_INT16},
      {CL_RG, CL_UNSIGNED_INT8},    {CL_A, CL_UNSIGNED_INT16},     {CL_R, CL_UNSIGNED_INT32},
      {CL_RG, CL_UNSIGNED_INT16},   {CL_RGBA, CL_UNSIGNED_INT8},   {CL_A, CL_UNSIGNED_INT32},
      {CL_RG, CL_UNSIGNED_INT32},   {CL_RGBA, CL_UNSIGNED_INT16},  {CL_RGBA, CL_UNSIGNED_INT32}};
  if (!next().clGetSupportedImageFormats) return false;
  cl_uint count = 0;
  if (next().clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                        nullptr, &count) != CL_SUCCESS)
    return false;
  std::vector<cl_image_format> supported(count);
  if (count && next().clGetSupportedImageFormats(context, CL_MEM_READ_WRITE,
                                                 CL_MEM_OBJECT_IMAGE2D, count, supported.data(),
                                                 nullptr) != CL_SUCCESS)
    return false;
  auto channels = [](cl_channel_order o) { return o == CL_RGBA ? 4u : o == CL_RG ? 2u : 1u; };
  auto channelBytes = [](cl_channel_type t) {
    return t == CL_UNSIGNED_INT8 ? 1u : t == CL_UNSIGNED_INT16 ? 2u : 4u;
  };
  for (const cl_image_format& c : kCandidates) {
    if (channels(c.image_channel_order) * channelBytes(c.image_channel_data_type) != bytes)
      continue;
    for (const cl_image_format& s : supported)
      if (s.image_channel_order == c.image_channel_order &&
          s.image_channel_data_type == c.image_channel_data_type) {
        *out = c;
        return true;
      }
  }
  return false;
}

void releaseEvent(cl_event& e) {
  if (e && next().clReleaseEvent) next().clReleaseEvent(e);
  e = nullptr;
}

}  // namespace

cl_int setImageFacts(cl_kernel kernel, const KernelManifest& manifest, cl_uint imageArg,
                     cl_mem image, const cl_image_format* format) {
  cl_int facts[4] = {};
  bool known = false;
  for (const HiddenArg& h : manifest.hiddenArgs) {
    if (h.kind != HiddenArg::Kind::ImageFacts || h.imageArg != imageArg) continue;
    if (!known) {
      known = true;
      cl_mem_object_type type = 0;
      cl_image_format queried = {};
      size_t width = 0, height = 0;
      if (image && !format && memValue(image, CL_MEM_TYPE, &type) == CL_SUCCESS &&
          type == CL_MEM_OBJECT_IMAGE2D && imageValue(image, CL_IMAGE_FORMAT, &queried) == CL_SUCCESS)
        format = &queried;
      if (image && format && imageValue(image, CL_IMAGE_WIDTH, &width) == CL_SUCCESS &&
          imageValue(image, CL_IMAGE_HEIGHT, &height) == CL_SUCCESS) {
        facts[0] = static_cast<cl_int>(format->image_channel_order);
        facts[1] = static_cast<cl_int>(format->image_channel_data_type);
        facts[2] = static_cast<cl_int>(width);
        facts[3] = static_cast<cl_int>(height);
      }
    }
    const cl_int err = next().clSetKernelArg(kernel, h.index, sizeof facts, facts);
    if (err != CL_SUCCESS) {
      ISG_LOG_ERROR("kernel " << manifest.name << ": setting the format of image argument "
                              << imageArg << " (hidden argument " << h.index << ") failed with "
                              << err);
      return err;
    }
  }
  return CL_SUCCESS;
}

bool exactForBlockIO(const cl_image_format& f, std::string* name) {
  switch (f.image_channel_order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_RG: case CL_RA:
    case CL_RGBA: case CL_BGRA: case CL_ARGB:
      break;
    default:
      *name = "channel order 0x" + hex(f.image_channel_order);
      return false;
  }
  switch (f.image_channel_data_type) {
    case CL_UNSIGNED_INT8: case CL_UNSIGNED_INT16: case CL_UNSIGNED_INT32: case CL_SIGNED_INT8:
    case CL_SIGNED_INT16: case CL_SIGNED_INT32: case CL_UNORM_INT8: case CL_UNORM_INT16:
    case CL_FLOAT:
      return true;
    case CL_HALF_FLOAT: *name = "CL_HALF_FLOAT"; return false;
    case CL_SNORM_INT8: *name = "CL_SNORM_INT8"; return false;
    case CL_SNORM_INT16: *name = "CL_SNORM_INT16"; return false;
    case CL_UNORM_SHORT_565: *name = "CL_UNORM_SHORT_565"; return false;
    case CL_UNORM_SHORT_555: *name = "CL_UNORM_SHORT_555"; return false;
    case CL_UNORM_INT_101010: *name = "CL_UNORM_INT_101010"; return false;
    default:
      *name = "channel data type 0x" + hex(f.image_channel_data_type);
      return false;
  }
}

void RawImageView::release() {
  releaseEvent(lastUse);
  if (view && next().clReleaseMemObject) next().clReleaseMemObject(view);
  if (staging && next().clReleaseMemObject) next().clReleaseMemObject(staging);
  *this = RawImageView{};
}

RawViewLaunch::~RawViewLaunch() {
  if (argsSet_) finish(nullptr, nullptr);
  for (cl_event& e : waits_) releaseEvent(e);
}

namespace {

constexpr size_t kHeaderBytes = 32;  // 75-image.cl's __isg_rw_image reads it

// Creates `v` for `in` (width x height elements of `bytes`); false with *err on failure.
bool makeStandIn(cl_command_queue queue, cl_context context, const ImageStandIn& in,
                 size_t width, size_t height, size_t bytes, RawImageView* v, cl_int* err) {
  if (in.texelBuffer) {
    cl_image_format format{};
    *err = imageValue(in.image, CL_IMAGE_FORMAT, &format);
    if (*err != CL_SUCCESS) return false;
    v->staging = next().clCreateBuffer(context, CL_MEM_READ_WRITE,
                                       kHeaderBytes + width * height * bytes, nullptr, err);
    if (!v->staging) return false;
    v->header[0] = cl_uint(width);
    v->header[1] = cl_uint(height);
    v->header[2] = format.image_channel_order;
    v->header[3] = format.image_channel_data_type;
    // The header lives in the view, which outlives the write (lastUse orders the next use).
    return (*err = next().clEnqueueWriteBuffer(queue, v->staging, CL_FALSE, 0, kHeaderBytes,
                                               v->header, 0, nullptr, &v->lastUse)) ==
           CL_SUCCESS;
  }
  cl_image_format format{};
  if (!viewFormat(context, bytes, &format)) {
    ISG_LOG_ERROR("argument " << in.arg << ": no unsigned-integer image format of " << bytes
                              << " bytes per element on this device, for the raw-bits view "
                                 "block and media IO need");
    *err = CL_IMAGE_FORMAT_NOT_SUPPORTED;
    return false;
  }
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  v->view = next().clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, nullptr, err);
  if (v->view)
    v->staging = next().clCreateBuffer(context, CL_MEM_READ_WRITE, width * height * bytes,
                                       nullptr, err);
  return v->view && v->staging;
}

}  // namespace

cl_int RawViewLaunch::prepare(cl_uint numEvents, const cl_event* events) {
  if (!next().clEnqueueCopyImageToBuffer || !next().clEnqueueCopyBufferToImage ||
      !next().clCreateImage || !next().clCreateBuffer || !next().clEnqueueWriteBuffer)
    return CL_INVALID_OPERATION;
  for (const ImageStandIn& in : standIns_) {
    size_t width = 0, height = 0, bytes = 0;
    cl_context context = nullptr;
    cl_int err = in.image ? imageValue(in.image, CL_IMAGE_WIDTH, &width) : CL_INVALID_KERNEL_ARGS;
    if (err == CL_SUCCESS) err = imageValue(in.image, CL_IMAGE_HEIGHT, &height);
    if (err == CL_SUCCESS) err = imageValue(in.image, CL_IMAGE_ELEMENT_SIZE, &bytes);
    if (err == CL_SUCCESS) err = memValue(in.image, CL_MEM_CONTEXT, &context);
    if (err != CL_SUCCESS) return err;
    RawImageView& v = (*views_)[in.arg];
    if (v.source != in.image || v.width != width || v.height != height || v.elementBytes != bytes)
      v.release();
    if (!v.staging) {
      if (!makeStandIn(queue_, context, in, width, height, bytes, &v, &err)) {
        v.release();
        return err == CL_SUCCESS ? CL_OUT_OF_RESOURCES : err;
      }
      v.source = in.image;
      v.width = width;
      v.height = height;
      v.elementBytes = bytes;
    }
    // After the application's wait list and the stand-in's previous use.
    std::vector<cl_event> before(events, events + numEvents);
    if (v.lastUse) before.push_back(v.lastUse);
    const size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
    cl_event copied = nullptr, filled = nullptr;
    err = next().clEnqueueCopyImageToBuffer(queue_, in.image, v.staging, origin, region,
                                            in.texelBuffer ? kHeaderBytes : 0,
                                            static_cast<cl_uint>(before.size()),
                                            before.empty() ? nullptr : before.data(), &copied);
    if (err == CL_SUCCESS && !in.texelBuffer) {
      err = next().clEnqueueCopyBufferToImage(queue_, v.staging, v.view, 0, origin, region, 1,
                                              &copied, &filled);
      releaseEvent(copied);
    } else {
      filled = copied;
    }
    if (err != CL_SUCCESS) {
      releaseEvent(filled);
      return err;
    }
    waits_.push_back(filled);
  }
  for (const ImageStandIn& in : standIns_) {
    const RawImageView& v = (*views_)[in.arg];
    cl_mem standIn = in.texelBuffer ? v.staging : v.view;
    cl_int err = next().clSetKernelArg(kernel_, in.arg, sizeof standIn, &standIn);
    argsSet_ = true;
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int RawViewLaunch::finish(cl_event launched, cl_event* appEvent) {
  cl_int result = CL_SUCCESS;
  if (argsSet_) {
    // A view replaced the application's own argument; a texel buffer is a hidden one.
    for (const ImageStandIn& in : standIns_) {
      if (in.texelBuffer) continue;
      cl_mem app = in.image;
      next().clSetKernelArg(kernel_, in.arg, sizeof app, &app);
    }
    argsSet_ = false;
  }
  if (!launched) return result;
  std::vector<cl_event> done;
  for (const ImageStandIn& in : standIns_) {
    RawImageView& v = (*views_)[in.arg];
    cl_kernel_arg_access_qualifier access = 0;
    // A read-only argument leaves the image as it was (arg info is optional: without it, the
    // view goes back); a texel buffer stands in for a read_write image.
    const bool readOnly =
        !in.texelBuffer && next().clGetKernelArgInfo &&
        next().clGetKernelArgInfo(kernel_, in.arg, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access,
                                  &access, nullptr) == CL_SUCCESS &&
        access == CL_KERNEL_ARG_ACCESS_READ_ONLY;
    cl_event last = nullptr;
    if (readOnly) {
      last = launched;
      if (next().clRetainEvent) next().clRetainEvent(last);
    } else {
      const size_t origin[3] = {0, 0, 0}, region[3] = {v.width, v.height, 1};
      cl_event copied = nullptr;
      cl_int err = CL_SUCCESS;
      if (in.texelBuffer) {
        err = next().clEnqueueCopyBufferToImage(queue_, v.staging, in.image, kHeaderBytes, origin,
                                                region, 1, &launched, &last);
      } else {
        err = next().clEnqueueCopyImageToBuffer(queue_, v.view, v.staging, origin, region, 0, 1,
                                                &launched, &copied);
        if (err == CL_SUCCESS)
          err = next().clEnqueueCopyBufferToImage(queue_, v.staging, in.image, 0, origin, region,
                                                  1, &copied, &last);
        releaseEvent(copied);
      }
      if (err != CL_SUCCESS) {
        ISG_LOG_ERROR("argument " << in.arg << ": copying the image's stand-in back failed with "
                                  << err);
        result = err;
        continue;
      }
    }
    releaseEvent(v.lastUse);
    v.lastUse = last;
    if (next().clRetainEvent) next().clRetainEvent(last);
    done.push_back(last);
  }
  if (appEvent) {
    if (done.empty()) {
      *appEvent = launched;
      launched = nullptr;
    } else if (done.size() == 1) {
      *appEvent = done[0];
      done.clear();
    } else {
      cl_int err = next().clEnqueueMarkerWithWaitList
                       ? next().clEnqueueMarkerWithWaitList(
                             queue_, static_cast<cl_uint>(done.size()), done.data(), appEvent)
                       : CL_INVALID_OPERATION;
      if (err != CL_SUCCESS) result = err;
    }
  }
  for (cl_event& e : done) releaseEvent(e);
  releaseEvent(launched);
  return result;
}

}  // namespace isg
