// SPDX-License-Identifier: MIT
// The one question capture asks the layer: what it did with a kernel, which the driver cannot
// tell (the driver only sees the shadow program). Declared here, defined by the layer
// (layer/capture_facts.cpp), so capture needs none of the layer's records.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <optional>
#include <string>

namespace isg::capture {

struct LayerFacts {
  bool rewritten = false;            // the kernel comes from a program the layer rewrote
  cl_program appProgram = nullptr;   // the application's program (nullptr: the driver would not say)
  cl_uint numUserArgs = 0;           // rewritten: the arguments the application sees
  unsigned subGroupSize = 0;         // rewritten: the size the layer gave the kernel
  // The library the program was rewritten for, else the device's strategy; "" when the layer
  // chose none.
  std::string strategy;
  std::optional<std::string> appOptions;  // build options as the application passed them
  // A program from SPIR-V the layer holds (its driver may have no IL): the application's module.
  std::shared_ptr<const std::string> spirv;
};

LayerFacts layerFacts(cl_kernel kernel, cl_device_id device) noexcept;

}  // namespace isg::capture
