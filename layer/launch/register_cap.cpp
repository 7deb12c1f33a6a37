// SPDX-License-Identifier: MIT
#include "launch/register_cap.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <vector>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "devices/device_strategy.h"
#include "isg/build_options.h"
#include "memory/image_views.h"

namespace isg {
cl_kernel buildCappedKernel(const ProgramRecord& program, const std::string& name,
                            cl_device_id device, size_t workGroupItems, cl_program* built) {
  *built = nullptr;
  if (!mayCapRegisters(program) || workGroupItems == 0 || !takesNvidiaOptions(device) ||
      !next().clCreateProgramWithSource || !next().clBuildProgram || !next().clCreateKernel)
    return nullptr;
  // Registers a work-group may use in all, shared by its work-items; allocated per 8.
  cl_uint registers = 0;
  if (deviceValue(device, CL_DEVICE_REGISTERS_PER_BLOCK_NV, &registers) != CL_SUCCESS || !registers)
    registers = 65536;
  const size_t cap = std::clamp<size_t>(registers / workGroupItems / 8 * 8, 16, 255);
  const std::string options =
      program.rewrite.options + " " + kCapOption + "=" + std::to_string(cap);
  cl_int err = CL_SUCCESS;
  cl_program p = createDriverProgram(program.driverProgram(), program.rewrite.source, &err);
  if (!p) return nullptr;
  err = next().clBuildProgram(p, 1, &device, options.c_str(), nullptr, nullptr);
  cl_kernel k = err == CL_SUCCESS ? next().clCreateKernel(p, name.c_str(), &err) : nullptr;
  if (!k) {
    ISG_LOG_WARNING("kernel " << name << ": building it with " << kCapOption << "=" << cap
                              << " for work-groups of " << workGroupItems << " work-items failed ("
                              << err << ")");
    next().clReleaseProgram(p);
    return nullptr;
  }
  ISG_LOG_INFO("kernel " << name << ": the driver refused work-groups of " << workGroupItems
                         << " work-items for resources; built again with " << kCapOption << "="
                         << cap);
  *built = p;
  return k;
}

cl_int replayArgs(const KernelRecord::ArgStore& store, cl_kernel target) {
  for (cl_uint i = 0; i < store.size(); ++i) {
    const ArgValue& a = store[i];
    cl_int err = CL_SUCCESS;
    switch (a.kind) {
      case ArgValue::Kind::Unset:
        continue;  // the driver reports it, as for the application's own kernel
      case ArgValue::Kind::Value:
        err = next().clSetKernelArg(target, i, a.size, a.bytes());
        break;
      case ArgValue::Kind::Local:
        err = next().clSetKernelArg(target, i, a.size, nullptr);
        break;
      case ArgValue::Kind::Svm:
        err = next().clSetKernelArgSVMPointer ? next().clSetKernelArgSVMPointer(target, i, a.svm())
                                              : CL_INVALID_OPERATION;
        break;
    }
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

bool runsCapped(const KernelRecord& record, size_t items) {
  return record.cap.kernel && items >= record.cap.refusedFrom && items <= record.cap.builtFor;
}

cl_kernel cappedKernelFor(KernelRecord& record, cl_device_id device, size_t items, cl_int refused,
                          cl_int* err) {
  *err = refused;
  if (!runsCapped(record, items)) {
    if (refused != CL_OUT_OF_RESOURCES || !record.cap.args || items == 0) return nullptr;
    record.cap.refusedFrom =
        record.cap.refusedFrom ? std::min(record.cap.refusedFrom, items) : items;
    if (!record.cap.kernel || items > record.cap.builtFor) {
      std::shared_ptr<ProgramRecord> program = programRegistry().find(record.appProgram);
      cl_program built = nullptr;
      cl_kernel k = program
                        ? buildCappedKernel(*program, record.manifest.name, device, items, &built)
                        : nullptr;
      if (!k) return nullptr;
      if (record.cap.kernel) next().clReleaseKernel(record.cap.kernel);
      if (record.cap.program) next().clReleaseProgram(record.cap.program);
      record.cap.kernel = k;
      record.cap.program = built;
      record.cap.builtFor = items;
      record.cap.args->capped.store(true, std::memory_order_release);
    }
  }
  *err = replayArgs(*record.cap.args, record.cap.kernel);
  if (*err != CL_SUCCESS) {
    // The copies hold the values the application set last, kept before the driver answered
    // (kernel_args.cpp): one the driver refuses now it refused then too, and what the
    // application's kernel holds instead is unknown. The launch keeps the driver's answer.
    ISG_LOG_WARNING("kernel " << record.manifest.name
                              << ": the register-capped build refuses an argument value the "
                                 "application set ("
                              << *err << "); the launch keeps the driver's answer for " << items
                              << " work-items");
    *err = CL_OUT_OF_RESOURCES;
    return nullptr;
  }
  // Image facts follow the images (an image never set leaves the launch to fail as it would).
  for (const auto& [arg, image] : record.images.bound)
    if (*err == CL_SUCCESS) *err = setImageFacts(record.cap.kernel, record.manifest, arg, image);
  return *err == CL_SUCCESS ? record.cap.kernel : nullptr;
}

}  // namespace isg
