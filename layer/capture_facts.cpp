// SPDX-License-Identifier: MIT
// capture::layerFacts (capture/layer_facts.h): the layer's records of a kernel, for a case.
#include "capture/layer_facts.h"

#include "core/driver_queries.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"

namespace isg::capture {

LayerFacts layerFacts(cl_kernel kernel, cl_device_id device) noexcept {
  LayerFacts f;
  try {
    std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
    f.rewritten = record != nullptr;
    f.appProgram = record ? record->appProgram : nullptr;
    if (!f.appProgram && kernelValue(kernel, CL_KERNEL_PROGRAM, &f.appProgram) != CL_SUCCESS)
      f.appProgram = nullptr;
    std::shared_ptr<ProgramRecord> program = f.appProgram ? programRegistry().find(f.appProgram) : nullptr;
    if (program) {
      f.appOptions = program->appOptions;
      f.spirv = program->il;
    }
    // The library the program was rewritten for can differ from the device's strategy (khr
    // falls back to local for a program with S > N; mixed-device builds use local).
    if (record && program)
      f.strategy = strategyName(program->rewrite.strategy);
    else if (const DeviceProfile* profile = DeviceStrategy::of(device))
      f.strategy = strategyName(profile->strategy);
    if (record) {
      f.numUserArgs = record->manifest.numUserArgs;
      f.subGroupSize = record->manifest.subGroupSize;
    }
  } catch (...) {
    // Capture only observes: a failure here makes a case with fewer facts, never an error.
  }
  return f;
}

}  // namespace isg::capture
