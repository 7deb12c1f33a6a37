// SPDX-License-Identifier: MIT
// Raw-bits views of images for block and media IO. Intel's hardware moves an image's bits as
// they are for every format; the builtins library (builtins-cl/common/75-image.cl) recovers
// them from read_image*/write_image* only where the conversion is lossless. For the other
// formats (SNORM, packed, sRGB, ...) the enqueue hands the kernel a view instead: an image of an
// unsigned-integer format with the same element size, filled with the image's texels before the
// launch and copied back after it (clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage
// move texels without conversion). An argument that other image functions also use
// (KernelManifest::mixedImageArgs) cannot take a view: such launches are refused.
#pragma once

#include <CL/cl.h>

#include <map>
#include <string>
#include <vector>

namespace isg {

// Whether block IO moves the bits of `format` exactly through read_image*/write_image*;
// otherwise `name` says which part of the format is not exact, for the log.
bool exactForBlockIO(const cl_image_format& format, std::string* name);

// One argument's view, kept by the kernel record between launches (its mutex guards it).
struct RawImageView {
  cl_mem source = nullptr;   // the application's image the view was made for (not retained)
  cl_mem view = nullptr;     // owned
  cl_mem staging = nullptr;  // owned: the texels on their way between the two
  size_t width = 0, height = 0, elementBytes = 0;
  cl_event lastUse = nullptr;  // owned: the last command that used view or staging
  void release();
};

// The raw views of one launch: prepare() before the driver's enqueue, finish() after it.
class RawViewLaunch {
 public:
  // `images`: argument index -> the application's image, for the arguments that need a view;
  // `views`: the record's views, reused across launches.
  RawViewLaunch(cl_command_queue queue, cl_kernel kernel, const std::map<cl_uint, cl_mem>& images,
                std::map<cl_uint, RawImageView>* views)
      : queue_(queue), kernel_(kernel), images_(images), views_(views) {}
  RawViewLaunch(const RawViewLaunch&) = delete;
  RawViewLaunch& operator=(const RawViewLaunch&) = delete;
  ~RawViewLaunch();

  // Fills the views (after the application's wait list) and sets them as the kernel's
  // arguments; the launch must wait for waitList().
  cl_int prepare(cl_uint numEvents, const cl_event* events);
  cl_uint numWaits() const { return static_cast<cl_uint>(waits_.size()); }
  const cl_event* waitList() const { return waits_.empty() ? nullptr : waits_.data(); }
  // After the launch (its event `launched`): copies the views back into the images, restores
  // the application's arguments, and gives the application the event of the last command.
  cl_int finish(cl_event launched, cl_event* appEvent);

 private:
  cl_command_queue queue_;
  cl_kernel kernel_;
  const std::map<cl_uint, cl_mem>& images_;
  std::map<cl_uint, RawImageView>* views_;
  std::vector<cl_event> waits_;  // owned unless they are the application's
  bool ownsWaits_ = false;
  bool argsSet_ = false;
};

}  // namespace isg
