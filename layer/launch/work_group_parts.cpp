// SPDX-License-Identifier: MIT
#include "launch/work_group_parts.h"

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "formats/spirv_module.h"
#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "launch/kernel_records.h"
#include "launch/kernel_records.h"

namespace isg {
namespace {

// The work-item functions whose value a launch in parts changes.
constexpr const char* kWholeLaunch[] = {"get_group_id",         "get_num_groups",
                                        "get_global_size",      "get_global_offset",
                                        "get_enqueued_local_size", "get_global_linear_id",
                                        "get_enqueued_num_sub_groups", "get_max_sub_group_size"};

// The first of kWholeLaunch a SPIR-V module reads, as the built-in variable it decorates, or
// nullptr.
const char* spirvWholeLaunch(const std::string& module) {
  // BuiltIn values (SPIR-V 1.4, 3.21) in kWholeLaunch's order.
  static const uint32_t builtIns[] = {26 /* WorkgroupId */,     24 /* NumWorkgroups */,
                                      31 /* GlobalSize */,      33 /* GlobalOffset */,
                                      32 /* EnqueuedWorkgroupSize */, 34 /* GlobalLinearId */,
                                      39 /* EnqueuedNumSubgroups */,  37 /* SubgroupMaxSize */};
  constexpr uint32_t kOpDecorate = 71, kBuiltIn = 11;
  const char* found = nullptr;
  spirv::anyInstruction(module, [&](uint32_t opcode, auto word, uint32_t count) {
    if (opcode != kOpDecorate || count < 4 || word(2) != kBuiltIn) return false;
    for (size_t k = 0; k < std::size(builtIns); ++k)
      if (word(3) == builtIns[k]) found = kWholeLaunch[k];
    return found != nullptr;
  });
  return found;
}

std::string callsWholeLaunch(const char* name) {
  return std::string("its program calls ") + name +
         ", whose value a launch in parts would change (the layer's own OpenCL C front end, "
         "ISG_NVIDIA_FRONTEND=layer for programs it rewrites, every for all, runs such launches on NVIDIA "
         "devices)";
}

// The verdict for `text` built with `options` (a program the layer did not take over, or the
// source of one it rewrote).
std::string whyNotInPartsOfText(RewriteInput text, bool* allowed) {
  *allowed = allowsNonUniformWorkGroups(text.options, false);
  if (!*allowed) return "no";
  bool unreadable = false;
  if (const char* name = namedIdentifier(text, {std::begin(kWholeLaunch), std::end(kWholeLaunch)}, &unreadable))
    return callsWholeLaunch(name);
  if (unreadable) return "its program includes a file the layer cannot read";
  return "";
}

// The verdict for a program the layer took over, from its record.
ProgramRecord::PartsVerdict verdictOf(const ProgramRecord& program) {
  ProgramRecord::PartsVerdict v;
  if (program.il && program.kind == ProgramRecord::Kind::Shadowed) {
    v.allowed = allowsNonUniformWorkGroups(program.appOptions, true);
    const char* name = v.allowed ? spirvWholeLaunch(*program.il) : nullptr;
    v.why = !v.allowed ? "no" : name ? callsWholeLaunch(name) : "";
    return v;
  }
  if (program.kind != ProgramRecord::Kind::Shadowed || program.rewrite.form != RewriteResult::Form::Source) {
    v.why = "the layer did not build its program from OpenCL C source or SPIR-V";
    return v;
  }
  RewriteInput text;
  text.options = program.appOptions;
  if (programString(program.app, CL_PROGRAM_SOURCE, &text.source) != CL_SUCCESS) {
    v.why = "its program's source cannot be read";
    return v;
  }
  // The rewrite read every file the program includes: its texts are at hand.
  text.headers = program.rewrite.headers;
  text.headers.insert(text.headers.end(), program.rewrite.diskFiles.begin(), program.rewrite.diskFiles.end());
  v.why = whyNotInPartsOfText(std::move(text), &v.allowed);
  return v;
}

// Why `kernel`'s launch cannot run in parts ("" when it can); *allowed false when the spec
// itself refuses it (the driver's answer stands without a word). A program the layer took
// over keeps its verdict in its record; another is read again at each refused launch.
std::string whyNotInParts(cl_kernel kernel, cl_device_id device, bool* allowed) {
  if (kernelIndex().contains(kernel)) {
    std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
    std::shared_ptr<ProgramRecord> program = record ? programRegistry().find(record->appProgram) : nullptr;
    if (!program) {
      *allowed = true;
      return "the layer did not build its program from OpenCL C source or SPIR-V";
    }
    std::shared_ptr<const ProgramRecord::PartsVerdict> verdict = std::atomic_load(&program->partsVerdict);
    if (!verdict) {
      verdict = std::make_shared<const ProgramRecord::PartsVerdict>(verdictOf(*program));
      std::atomic_store(&program->partsVerdict, verdict);
    }
    *allowed = verdict->allowed;
    return verdict->why;
  }
  RewriteInput text;
  cl_program program = nullptr;
  if (kernelValue(kernel, CL_KERNEL_PROGRAM, &program) != CL_SUCCESS ||
      programBuildString(program, device, CL_PROGRAM_BUILD_OPTIONS, &text.options) != CL_SUCCESS ||
      programString(program, CL_PROGRAM_SOURCE, &text.source) != CL_SUCCESS || text.source.empty())
    return "its program's source cannot be read";
  return whyNotInPartsOfText(std::move(text), allowed);
}

}  // namespace

cl_int launchInParts(const LaunchDescription& l, cl_kernel kernel, const size_t* local,
                     cl_uint waits, const cl_event* wait, cl_event* done, cl_int refused) {
  if (refused != CL_INVALID_WORK_GROUP_SIZE || !unevenLaunch(l.workDim, l.globalSize, local)) return refused;
  cl_device_id device = nullptr;
  if (queueDevice(l.queue, &device) != CL_SUCCESS) return refused;
  bool allowed = true;
  if (std::string why = whyNotInParts(l.kernel, device, &allowed); !why.empty()) {
    if (allowed)
      ISG_LOG_WARNING("a launch of a kernel with non-uniform work-groups, which the driver refuses, "
                      "cannot run in parts: " << why);
    return refused;
  }
  if (done && !next().clEnqueueMarkerWithWaitList) return refused;
  // Per dimension: the whole work-groups, then the last, smaller one.
  struct Part {
    size_t offset, size, local;
  };
  std::vector<Part> parts[3];
  for (cl_uint d = 0; d < l.workDim; ++d) {
    const size_t offset = l.globalOffset ? l.globalOffset[d] : 0;
    const size_t whole = l.globalSize[d] / local[d] * local[d], rest = l.globalSize[d] - whole;
    if (whole) parts[d].push_back({offset, whole, local[d]});
    if (rest) parts[d].push_back({offset + whole, rest, rest});
  }
  std::vector<cl_event> launched;
  cl_int err = CL_SUCCESS;
  size_t index[3] = {0, 0, 0};
  for (bool more = true; more && err == CL_SUCCESS;) {
    size_t offset[3], size[3], group[3];
    for (cl_uint d = 0; d < l.workDim; ++d) {
      offset[d] = parts[d][index[d]].offset;
      size[d] = parts[d][index[d]].size;
      group[d] = parts[d][index[d]].local;
    }
    cl_event e = nullptr;
    err = next().clEnqueueNDRangeKernel(l.queue, kernel, l.workDim, offset, size, group, waits, wait,
                                        done ? &e : nullptr);
    if (e) launched.push_back(e);
    more = false;
    for (cl_uint d = 0; d < l.workDim && !more; ++d) {
      if (++index[d] < parts[d].size()) more = true;
      else index[d] = 0;
    }
  }
  if (err == CL_SUCCESS && done)
    err = next().clEnqueueMarkerWithWaitList(l.queue, cl_uint(launched.size()), launched.data(), done);
  for (cl_event e : launched) next().clReleaseEvent(e);
  return err;
}

}  // namespace isg
