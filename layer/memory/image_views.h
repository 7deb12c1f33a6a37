// SPDX-License-Identifier: MIT
// Stand-ins for images at enqueue, for block and media IO.
// Raw-bits views: Intel's hardware moves an image's bits as they are for every format; the
// builtins library (builtins-cl/common/75-image.cl) recovers them from read_image*/write_image*
// only where the conversion is lossless. For the other formats (SNORM, half, packed, ...) the
// enqueue hands the kernel a view instead: an image of an unsigned-integer format with the same
// element size, filled with the image's texels before the launch and copied back after it
// (clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage move texels without conversion).
// An argument that other image functions also use (KernelManifest::mixedImageArgs) cannot take
// a view: such launches are refused.
// Texel buffers: a read_write image2d_t on a device without read-write images (HiddenArg::
// Kind::RawImage) reaches the kernel as a buffer of its texels after a 32-byte header (width,
// height, channel order, channel data type), copied back after the launch.
// Image facts (HiddenArg::Kind::ImageFacts): the format and size of the image an argument
// names, which the library would otherwise query per call; they follow the argument: every
// clSetKernelArg of it, a view in its place for one launch.
#pragma once

#include <CL/cl.h>

#include <map>
#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace isg {

// Sets on `kernel` the facts of `image` (channel order, channel data type, width, height; zeros
// for anything but a 2D image) as every ImageFacts argument of application argument
// `imageArg` in `manifest`. `format`, where the caller has it, is the format of `image`, a
// 2D image: it is not asked again.
cl_int setImageFacts(cl_kernel kernel, const KernelManifest& manifest, cl_uint imageArg,
                     cl_mem image, const cl_image_format* format = nullptr);

// Whether block IO moves the bits of `format` exactly through read_image*/write_image*;
// otherwise `name` says which part of the format is not exact, for the log.
bool exactForBlockIO(const cl_image_format& format, std::string* name);

// One stand-in, kept by the kernel record between launches (its mutex guards it).
struct RawImageView {
  cl_mem source = nullptr;   // the application's image it was made for (not retained)
  cl_mem view = nullptr;     // owned; null for a texel buffer
  cl_mem staging = nullptr;  // owned: the texels on their way (a texel buffer: the buffer)
  size_t width = 0, height = 0, elementBytes = 0;
  cl_uint header[8] = {};    // a texel buffer's header, read by its first write
  cl_event lastUse = nullptr;  // owned: the last command that used view or staging
  void release();
};

// What one launch needs: the application's image for argument `arg` of the kernel (a view
// replaces the argument; a texel buffer is the hidden argument `arg`).
struct ImageStandIn {
  cl_uint arg = 0;
  cl_mem image = nullptr;
  bool texelBuffer = false;
};

// The stand-ins of one launch: prepare() before the driver's enqueue, finish() after it.
class RawViewLaunch {
 public:
  RawViewLaunch(cl_command_queue queue, cl_kernel kernel, std::vector<ImageStandIn> standIns,
                std::map<cl_uint, RawImageView>* views)
      : queue_(queue), kernel_(kernel), standIns_(std::move(standIns)), views_(views) {}
  RawViewLaunch(const RawViewLaunch&) = delete;
  RawViewLaunch& operator=(const RawViewLaunch&) = delete;
  ~RawViewLaunch();

  // Fills the stand-ins (after the application's wait list) and sets them as the kernel's
  // arguments; the launch must wait for waitList().
  cl_int prepare(cl_uint numEvents, const cl_event* events);
  cl_uint numWaits() const { return static_cast<cl_uint>(waits_.size()); }
  const cl_event* waitList() const { return waits_.empty() ? nullptr : waits_.data(); }
  // After the launch (its event `launched`): copies the stand-ins back into the images,
  // restores the application's arguments, and gives the application the event of the last
  // command.
  cl_int finish(cl_event launched, cl_event* appEvent);

 private:
  cl_command_queue queue_;
  cl_kernel kernel_;
  std::vector<ImageStandIn> standIns_;
  std::map<cl_uint, RawImageView>* views_;
  std::vector<cl_event> waits_;  // owned
  bool argsSet_ = false;
};

}  // namespace isg
