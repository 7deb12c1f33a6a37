// SPDX-License-Identifier: MIT
// The OpenCL side of one replay: the device the options name, and a case's program, memory and
// arguments recreated on it, run from the captured inputs. Every failure throws Fatal
// (case_loader.h) with a one-line brief saying what failed (build, launch, ...).
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "case_loader.h"

namespace isg::replay {

struct Options;

// "CL_OUT_OF_RESOURCES (-5)"; "OpenCL error N" for codes it does not know.
std::string clErrorName(cl_int err);

void selectDevice(const Options& o, cl_platform_id* platform, cl_device_id* device);
std::string platformText(cl_platform_id p, cl_platform_info what);
std::string deviceText(cl_device_id d, cl_device_info what);
// "[256, 1]", or NULL for an absent offset or local size.
std::string dims(const std::optional<std::vector<std::uint64_t>>& v);

struct Replay {
  const LoadedCase& l;
  std::string options;  // the build options used (the case's, edited by --options/--drop-option)
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> memory;                  // per memory object
  std::vector<std::array<size_t, 3>> regions;  // images: what to write and read
  std::vector<cl_mem> subBuffers;
  std::vector<cl_sampler> samplers;
  std::vector<std::string> typeNames;  // per argument, the element type used

  Replay(const LoadedCase& lc, std::string buildOptions) : l(lc), options(std::move(buildOptions)) {}
  ~Replay();
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  void build(cl_device_id device);
  void createMemory(cl_device_id device);
  void setArguments();
  // Every run starts from the captured inputs, so repeated runs are the same run.
  void restoreInputs();
  // The kernel time in ns (profiling), or the host wall time when profiling fails.
  double run(bool* profiled);
  std::vector<std::string> readOutputs();
};

}  // namespace isg::replay
