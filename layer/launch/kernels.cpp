// SPDX-License-Identifier: MIT
// Kernel objects of programs the layer took over: their creation, lifetime and what the
// application may see of them (their program, their argument list without the hidden
// arguments). Setting arguments is kernel_args.cpp's, launching enqueue.cpp's and
// launch_plan.cpp's.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "capture/enqueue_capture.h"
#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"
#include "launch/register_cap.h"

namespace isg {

namespace detail {
// Created when the library loads, before the loader can call an entry (immortal.h).
Immortal<ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>> g_kernelRegistry;
}  // namespace detail

ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>& kernelRegistry() {
  return detail::g_kernelRegistry.get();
}

bool programHasKernels(cl_program program) {
  return kernelRegistry().any([&](const KernelRecord& k) { return k.appProgram == program; });
}

namespace {

// KernelRecord::rowMultiple for a kernel of `program`: only kernels that exchange data within
// sub-groups care how the driver cuts rows into sub-groups.
unsigned rowMultipleFor(const ProgramRecord& program, const KernelManifest& manifest) {
  if (program.rewrite.strategy != Strategy::Khr || !exchangesWithinSubGroups(manifest)) return 0;
  std::vector<cl_device_id> devices;
  if (programDevices(program.driverProgram(), &devices) != CL_SUCCESS) return 0;
  for (cl_device_id device : devices)
    if (const DeviceProfile* profile = DeviceStrategy::of(device);
        profile && profile->khrRowSubGroups)
      return profile->traits.nativeSubGroupSize;
  return 0;
}

}  // namespace

void registerKernel(cl_kernel kernel, const ProgramRecord& program, const std::string& name) {
  auto record = std::make_shared<KernelRecord>();
  record->appProgram = program.app;
  if (const KernelManifest* manifest = program.findKernel(name)) {
    record->manifest = *manifest;
  } else {
    // A kernel the rewriter did not describe uses no builtin: the device default, no hidden
    // arguments, every argument the application's.
    record->manifest.name = name;
    record->manifest.subGroupSize = program.defaultSubGroupSize;
    cl_uint args = 0;
    kernelValue(kernel, CL_KERNEL_NUM_ARGS, &args);
    record->manifest.numUserArgs = args;
  }
  record->rowMultiple = rowMultipleFor(program, record->manifest);
  // The launch shape of a uniform launch (launch_shape.h), which the driver wants set like any
  // argument; non-uniform launches set it around themselves.
  if (cl_int err = setLaunchShape(kernel, record->manifest, kUniformLaunch))
    ISG_LOG_WARNING("kernel " << name << ": setting its launch shape failed with " << err);
  // Every kernel of a rewritten program keeps copies where the driver may refuse a work-group
  // for registers (NVIDIA): the driver answers 256 for CL_KERNEL_WORK_GROUP_SIZE whatever the
  // kernel, and a kernel with a private array refuses 1024 unless capped (docs/strategies.md).
  if (program.variants && variantsCanServe(record->manifest, program.variants->forSpeed()))
    record->variants.program = program.variants;
  // A kernel with a packed copy (launch_plan.h) sets them on the copy at each packed launch.
  if (mayCapRegisters(program) || record->variants.program ||
      hiddenArgOf(record->manifest, HiddenArg::Kind::PackedLaunch)) {
    record->cap.args = ArgStore::make(record->manifest.numUserArgs);
  }
  // The driver kernel keeps the shadow alive; the application's program must stay alive as
  // long as a kernel can name it (CL_KERNEL_PROGRAM).
  if (program.kind == ProgramRecord::Kind::Shadowed && next().clRetainProgram) {
    next().clRetainProgram(program.app);
    record->holdsAppProgram = true;
  }
  kernelRegistry().put(kernel, record);
}

namespace {

// A rewritten kernel's argument as the application declared it (isg::ArgInfo): the driver's
// kernel may take it in another form (a local uint4* on NVIDIA, a buffer for a read_write
// image), or, given PTX, know nothing of it.
cl_int answerArgInfo(const ArgInfo& a, cl_kernel_arg_info param_name, size_t size, void* value,
                     size_t* size_ret) {
  switch (param_name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: {
      static const cl_kernel_arg_address_qualifier spaces[] = {
          CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL,
          CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_LOCAL};
      return writeValue(size, value, size_ret, spaces[static_cast<int>(a.address)]);
    }
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: {
      static const cl_kernel_arg_access_qualifier access[] = {
          CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ACCESS_READ_ONLY,
          CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ACCESS_READ_WRITE};
      return writeValue(size, value, size_ret, access[static_cast<int>(a.access)]);
    }
    case CL_KERNEL_ARG_TYPE_NAME:
      return writeString(size, value, size_ret, a.typeName);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
      return writeValue(size, value, size_ret, cl_kernel_arg_type_qualifier{a.typeQualifiers});
    case CL_KERNEL_ARG_NAME:
      return writeString(size, value, size_ret, a.name);
    default:
      return CL_INVALID_VALUE;
  }
}

}  // namespace

cl_kernel CL_API_CALL clCreateKernel_layer(cl_program program, const char* kernel_name,
                                           cl_int* errcode_ret) {
  return guardedCreate<cl_kernel>("clCreateKernel", errcode_ret, [&]() -> cl_kernel {
    ISG_REQUIRE_NEXT_CREATE(clCreateKernel, errcode_ret);
    ISG_REJECT_WRONG_KIND_CREATE(program, Program, CL_INVALID_PROGRAM, errcode_ret);
    std::shared_ptr<ProgramRecord> record = programRegistry().find(program);
    cl_kernel kernel = nullptr;
    if (!record) {
      kernel = next().clCreateKernel(program, kernel_name, errcode_ret);
    } else if (record->kind == ProgramRecord::Kind::RewriteFailed) {
      if (errcode_ret) *errcode_ret = CL_INVALID_PROGRAM_EXECUTABLE;
      return nullptr;
    } else if (kernel_name && isPackedCopy(*record, kernel_name)) {
      if (errcode_ret) *errcode_ret = CL_INVALID_KERNEL_NAME;  // the layer's, not a kernel of the program
      return nullptr;
    } else {
      kernel = next().clCreateKernel(record->driverProgram(), kernel_name, errcode_ret);
      if (kernel) registerKernel(kernel, *record, kernel_name);
    }
    handleKinds().created(kernel, HandleKind::Kernel);
    return kernel;
  });
}

namespace {

// clCreateKernelsInProgram of a program with packed copies (program_records.h): the driver's
// kernels without them, the counts and errors as for the application's kernels alone.
cl_int createKernelsWithoutCopies(const ProgramRecord& record, cl_uint num_kernels, cl_kernel* kernels,
                                  cl_uint* num_kernels_ret) {
  if (kernels && num_kernels == 0) return CL_INVALID_VALUE;
  std::string names;
  size_t count = 0;
  if (cl_int err = visibleKernelNames(record, &names, &count)) return err;
  const cl_uint visible = cl_uint(count);
  if (kernels && num_kernels < visible) return CL_INVALID_VALUE;
  if (num_kernels_ret) *num_kernels_ret = visible;
  if (!kernels) return CL_SUCCESS;
  cl_uint all = 0;
  cl_int err = next().clCreateKernelsInProgram(record.driverProgram(), 0, nullptr, &all);
  std::vector<cl_kernel> made(all);
  if (err == CL_SUCCESS && all) err = next().clCreateKernelsInProgram(record.driverProgram(), all, made.data(), nullptr);
  if (err != CL_SUCCESS) return err;
  cl_uint n = 0;
  for (cl_kernel k : made) {
    std::string name;
    kernelString(k, CL_KERNEL_FUNCTION_NAME, &name);
    if (isPackedCopy(record, name) || n == visible) {
      next().clReleaseKernel(k);
      continue;
    }
    kernels[n++] = k;
    handleKinds().created(k, HandleKind::Kernel);
    registerKernel(k, record, name);
  }
  return CL_SUCCESS;
}

}  // namespace

cl_int CL_API_CALL clCreateKernelsInProgram_layer(cl_program program, cl_uint num_kernels,
                                                  cl_kernel* kernels, cl_uint* num_kernels_ret) {
  return guardedEntry("clCreateKernelsInProgram", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clCreateKernelsInProgram);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    std::shared_ptr<ProgramRecord> record = programRegistry().find(program);
    if (record && record->kind == ProgramRecord::Kind::RewriteFailed)
      return CL_INVALID_PROGRAM_EXECUTABLE;
    if (record && hasPackedCopies(*record)) return createKernelsWithoutCopies(*record, num_kernels, kernels, num_kernels_ret);
    cl_uint created = 0;
    cl_int err = next().clCreateKernelsInProgram(record ? record->driverProgram() : program,
                                                 num_kernels, kernels, &created);
    if (num_kernels_ret) *num_kernels_ret = created;
    if (err != CL_SUCCESS || !kernels) return err;
    for (cl_uint i = 0; i < created; ++i) handleKinds().created(kernels[i], HandleKind::Kernel);
    if (!record) return err;
    for (cl_uint i = 0; i < created; ++i) {
      std::string name;
      kernelString(kernels[i], CL_KERNEL_FUNCTION_NAME, &name);
      registerKernel(kernels[i], *record, name);
    }
    return CL_SUCCESS;
  });
}

cl_kernel CL_API_CALL clCloneKernel_layer(cl_kernel source_kernel, cl_int* errcode_ret) {
  return guardedCreate<cl_kernel>("clCloneKernel", errcode_ret, [&]() -> cl_kernel {
    ISG_REQUIRE_NEXT_CREATE(clCloneKernel, errcode_ret);
    ISG_REJECT_WRONG_KIND_CREATE(source_kernel, Kernel, CL_INVALID_KERNEL, errcode_ret);
    cl_kernel clone = next().clCloneKernel(source_kernel, errcode_ret);
    handleKinds().created(clone, HandleKind::Kernel);
    if (clone && capture::enabled()) capture::copyArgs(source_kernel, clone);
    std::shared_ptr<KernelRecord> source = kernelRegistry().find(source_kernel);
    if (!clone || !source) return clone;
    auto record = std::make_shared<KernelRecord>();
    record->appProgram = source->appProgram;
    record->manifest = source->manifest;
    record->rowMultiple = source->rowMultiple;
    record->variants.program = source->variants.program;  // its own kernels, made as needed
    if (source->cap.args) {  // a clone starts with the source's argument values
      record->cap.args = ArgStore::copy(*source->cap.args);
    }
    {  // and with its images (not their views, which belong to one kernel object)
      std::lock_guard<std::mutex> lock(source->enqueueMutex);
      record->images.inexact = source->images.inexact;
      record->images.bound = source->images.bound;
    }
    if (source->holdsAppProgram && next().clRetainProgram) {
      next().clRetainProgram(record->appProgram);
      record->holdsAppProgram = true;
    }
    kernelRegistry().put(clone, record);
    return clone;
  });
}

cl_int CL_API_CALL clRetainKernel_layer(cl_kernel kernel) {
  return guardedEntry("clRetainKernel", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clRetainKernel);
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    cl_int err = CL_SUCCESS;
    if (!kernelIndex().contains(kernel)) {
      err = next().clRetainKernel(kernel);
    } else {
      std::lock_guard<std::recursive_mutex> serial(
          releaseMutex());  // against a racing last release
      err = next().clRetainKernel(kernel);
      if (err == CL_SUCCESS)
        if (std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel))
          ++record->appReferences;
    }
    if (err == CL_SUCCESS) handleKinds().retained(kernel, HandleKind::Kernel);
    return err;
  });
}

namespace {

cl_int releaseKernel(cl_kernel kernel) {
  return guardedEntry("clReleaseKernel", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clReleaseKernel);
    if (capture::enabled()) capture::beforeReleaseKernel(kernel);
    if (!kernelIndex().contains(kernel)) return next().clReleaseKernel(kernel);
    return releaseRecorded(
        [&] {
          std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
          return record ? record->appReferences-- : cl_uint{1};
        },
        [&] { return kernelRegistry().take(kernel); },
        [&] { return next().clReleaseKernel(kernel); },
        [&](const std::shared_ptr<KernelRecord>& record) {
          if (!record) return;
          record->appReferences = 1;
          kernelRegistry().put(kernel, record);
        },
        [&](const std::shared_ptr<KernelRecord>& record) {
          if (!record) return;
          for (auto& [index, view] : record->images.views) view.release();
          record->variants.release();
          if (record->packed.kernel) next().clReleaseKernel(record->packed.kernel);
          if (record->cap.kernel) next().clReleaseKernel(record->cap.kernel);
          if (record->cap.program && next().clReleaseProgram)
            next().clReleaseProgram(record->cap.program);
          // Through the layer's own entry: this may be the application program's last
          // reference, and then its shadow goes too.
          if (record->holdsAppProgram) releaseProgram(record->appProgram);
        });
  });
}

}  // namespace

cl_int CL_API_CALL clReleaseKernel_layer(cl_kernel kernel) {
  ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
  const cl_int err = releaseKernel(kernel);
  if (err == CL_SUCCESS) handleKinds().released(kernel, HandleKind::Kernel);
  return err;
}

// CL_KERNEL_WORK_GROUP_SIZE of a kernel whose PTX the layer wrote: NVIDIA's driver answers 256
// whatever the kernel, and the layer's PTX launches at up to the device's largest work-group
// (.maxntid 1024, registers kept to it), or at its reqd_work_group_size (.reqntid). Intel's
// drivers answer their largest, and Intel-targeted code sizes its work-groups by the answer
// (ggml's cumsum takes rows of up to the square of it).
cl_int CL_API_CALL clGetKernelWorkGroupInfo_layer(cl_kernel kernel, cl_device_id device,
                                                  cl_kernel_work_group_info param_name,
                                                  size_t param_value_size, void* param_value,
                                                  size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelWorkGroupInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetKernelWorkGroupInfo);
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    if (const cl_int wrong = notAProgramOrKernel(device, CL_INVALID_DEVICE)) return wrong;
    auto forward = [&] {
      return next().clGetKernelWorkGroupInfo(kernel, device, param_name, param_value_size,
                                             param_value, param_value_size_ret);
    };
    if (param_name != CL_KERNEL_WORK_GROUP_SIZE || !kernelIndex().contains(kernel))
      return forward();
    std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
    std::shared_ptr<ProgramRecord> program =
        record ? programRegistry().find(record->appProgram) : nullptr;
    if (!program || program->rewrite.form != RewriteResult::Form::Ptx) return forward();
    // The driver checks the kernel, the device and the caller's buffer (and answers a size query).
    if (cl_int err = forward(); err != CL_SUCCESS || !param_value) return err;
    const std::size_t* reqd = record->manifest.reqdWorkGroupSize;
    size_t largest = reqd[0] * reqd[1] * reqd[2];
    if (largest == 0) {
      cl_device_id target = device;
      std::vector<cl_device_id> devices;
      if (!target && programDevices(program->driverProgram(), &devices) == CL_SUCCESS &&
          devices.size() == 1)
        target = devices[0];
      const DeviceProfile* profile = target ? DeviceStrategy::of(target) : nullptr;
      if (!profile || profile->maxWorkGroupSize == 0) return forward();
      largest = profile->maxWorkGroupSize;
    }
    return writeValue(param_value_size, param_value, param_value_size_ret, largest);
  });
}

cl_int CL_API_CALL clGetKernelInfo_layer(cl_kernel kernel, cl_kernel_info param_name,
                                         size_t param_value_size, void* param_value,
                                         size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetKernelInfo);
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
    if (record) {
      switch (param_name) {
        case CL_KERNEL_PROGRAM:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            record->appProgram);
        case CL_KERNEL_NUM_ARGS:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            cl_uint{record->manifest.numUserArgs});
        default:
          break;
      }
    }
    return next().clGetKernelInfo(kernel, param_name, param_value_size, param_value,
                                  param_value_size_ret);
  });
}

cl_int CL_API_CALL clGetKernelArgInfo_layer(cl_kernel kernel, cl_uint arg_index,
                                            cl_kernel_arg_info param_name, size_t param_value_size,
                                            void* param_value, size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelArgInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetKernelArgInfo);
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    // The layer's hidden arguments are no arguments to the application.
    if (std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel)) {
      if (arg_index >= record->manifest.numUserArgs) return CL_INVALID_ARG_INDEX;
      if (arg_index < record->manifest.args.size())
        return answerArgInfo(record->manifest.args[arg_index], param_name, param_value_size,
                             param_value, param_value_size_ret);
    }
    return next().clGetKernelArgInfo(kernel, arg_index, param_name, param_value_size, param_value,
                                     param_value_size_ret);
  });
}

}  // namespace isg
