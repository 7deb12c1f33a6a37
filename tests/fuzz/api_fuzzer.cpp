// SPDX-License-Identifier: MIT
// libFuzzer target through the real OpenCL API: each input is a program an application could
// hand the layer (OpenCL C with Intel builtins, or a SPIR-V module), driven the way applications
// drive one: create, build (or compile + link, or rebuild from its binaries), create every
// kernel, query it, set every argument, launch it, release everything. The layer is loaded by
// the ICD loader (OPENCL_LAYERS) in front of the default device (PoCL in CI), so what runs is
// exactly what runs in an application's process.
//
// Input layout (a plain .cl or .spv file with one byte in front is a seed):
//   byte 0   bits 0-2: build options (kOptions); bit 3: compile + link instead of build;
//            bit 4: rebuild from CL_PROGRAM_BINARIES; bit 5: launch a clone of each kernel;
//            bit 6: let the driver choose the local size; bit 7: a 2-D launch
//   byte 1.. a SPIR-V module if it starts with SPIR-V's magic number (clCreateProgramWithIL),
//            otherwise program source; text after a NUL byte is a header `fuzz.h`, given to
//            clCompileProgram as a header and, for clBuildProgram, found through -I.
//
// Besides crashes, sanitizer reports, leaks and hangs, the target aborts on answers the spec
// rules out whatever the program: an error code OpenCL does not have, a hidden argument that
// accepts a value, a clone with another argument count, a failed build without a log.
//
// Built two ways: with libFuzzer (tests/fuzz/run-api.sh) for campaigns, and as an ordinary
// executable (replay_main.cpp) that replays the committed corpus and reproducers in CTest.
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include <stdlib.h>  // mkdtemp, setenv

namespace {

// Options real projects build with (CLBlast, clDNN, OpenCV, ggml), the header directory added
// by the target itself (`-I <dir>` in front of each).
const char* const kOptions[] = {
    "",
    "-cl-std=CL1.2 -cl-mad-enable -cl-fast-relaxed-math",
    "-cl-std=CL2.0 -DSIMD=16 -DTYPE=float -DVEC=4",
    "-cl-std=CL3.0 -D SUB_GROUP_SIZE=8 -DUSE_SUBGROUP_SHUFFLING=1",
    "-cl-std=CL1.2 -DSIMD=8 -DTYPE=half -cl-kernel-arg-info",
    "-cl-std=CL2.0 -DSIMD=32 -DTYPE=int -cl-denorms-are-zero -Werror",
    "-DSIMD=16 -DTYPE=uint -cl-finite-math-only -w",
    "-cl-std=CL3.0 -DSIMD=13 -DTYPE=float -cl-unknown-option",
};

struct Session {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::vector<cl_mem> buffers;  // big enough that a mutated index rarely leaves them
  cl_mem image = nullptr;       // for image arguments (media block io)
  cl_sampler sampler = nullptr;
  std::string headerDir;
};

Session* session = nullptr;

// What the inputs reached, for the replay's summary (replay_main.cpp).
struct Reached {
  unsigned long programs = 0, built = 0, kernels = 0, launched = 0;
} reached;

[[noreturn]] void violated(const char* what, cl_int code) {
  std::fprintf(stderr, "ERROR: api fuzzer: the spec rules this out: %s (%d)\n", what, code);
  std::abort();
}

// OpenCL's own codes (cl.h: 0 to -72) and those of the extensions a driver may answer with
// (-1000 to -1200: cl_khr_icd, GL sharing, the layer extension's range).
cl_int checked(cl_int code, const char* where) {
  if (code == CL_SUCCESS || (code <= -1 && code >= -72) || (code <= -1000 && code >= -1200))
    return code;
  violated(where, code);
}

// Why the set-up failed, or nullptr. libFuzzer's fork mode keeps only the lines of a child's log
// that contain "ERROR:", so the message says that.
const char* setUp() {
  Session s;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &s.platform, &n) != CL_SUCCESS || n == 0) return "clGetPlatformIDs";
  if (clGetDeviceIDs(s.platform, CL_DEVICE_TYPE_ALL, 1, &s.device, &n) != CL_SUCCESS || n == 0)
    return "clGetDeviceIDs";
  cl_int err = CL_SUCCESS;
  s.context = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return "clCreateContext";
  s.queue = clCreateCommandQueue(s.context, s.device, 0, &err);
  if (err != CL_SUCCESS) return "clCreateCommandQueue";
  std::vector<unsigned char> zeros(1 << 20, 0);
  for (int i = 0; i < 4; ++i) {
    s.buffers.push_back(clCreateBuffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                       zeros.size(), zeros.data(), &err));
    if (err != CL_SUCCESS) return "clCreateBuffer";
  }
  cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 256;
  desc.image_height = 256;
  s.image = clCreateImage(s.context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  if (err != CL_SUCCESS) s.image = nullptr;  // a device without images: those arguments fail
  s.sampler = clCreateSampler(s.context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  if (err != CL_SUCCESS) s.sampler = nullptr;
  char dir[] = "/tmp/isg-api-fuzz-XXXXXX";
  if (!mkdtemp(dir)) return "mkdtemp";
  s.headerDir = dir;
  session = new Session(s);
  // The header directory goes with the process (a campaign starts one process per job).
  std::atexit([] {
    std::remove((session->headerDir + "/fuzz.h").c_str());
    std::remove(session->headerDir.c_str());
  });
  return nullptr;
}

std::string infoString(cl_kernel k, cl_uint index, cl_kernel_arg_info what) {
  std::size_t size = 0;
  if (clGetKernelArgInfo(k, index, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  if (clGetKernelArgInfo(k, index, what, size, &s[0], nullptr) != CL_SUCCESS) return {};
  s.resize(std::strlen(s.c_str()));
  return s;
}

// Sets argument `index` the way the kernel declares it (the target builds with
// -cl-kernel-arg-info to know); false when nothing fits or the declaration is unknown (the kernel
// is then not launched).
bool setArgument(cl_kernel k, cl_uint index) {
  cl_kernel_arg_address_qualifier space = 0;
  bool known = clGetKernelArgInfo(k, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(space),
                                  &space, nullptr) == CL_SUCCESS;
  std::string type = infoString(k, index, CL_KERNEL_ARG_TYPE_NAME);
  cl_mem buffer = session->buffers[index % session->buffers.size()];
  if (known && type.find("image") != std::string::npos)
    return session->image &&
           checked(clSetKernelArg(k, index, sizeof(cl_mem), &session->image), "image arg") ==
               CL_SUCCESS;
  if (known && type.find("sampler") != std::string::npos)
    return session->sampler &&
           checked(clSetKernelArg(k, index, sizeof(cl_sampler), &session->sampler),
                   "sampler arg") == CL_SUCCESS;
  if (known && space == CL_KERNEL_ARG_ADDRESS_LOCAL)
    return checked(clSetKernelArg(k, index, 4096, nullptr), "local arg") == CL_SUCCESS;
  if (known && (space == CL_KERNEL_ARG_ADDRESS_GLOBAL || space == CL_KERNEL_ARG_ADDRESS_CONSTANT))
    return checked(clSetKernelArg(k, index, sizeof(cl_mem), &buffer), "buffer arg") == CL_SUCCESS;
  // Without the argument's declaration (a program rebuilt from its binary keeps none on PoCL)
  // the target still sets something, but never launches: PoCL alone crashes in the launch when
  // a buffer stands where the kernel declares an image.
  if (!known) {
    if (checked(clSetKernelArg(k, index, sizeof(cl_mem), &buffer), "arg") != CL_SUCCESS)
      checked(clSetKernelArg(k, index, 4096, nullptr), "arg");
    return false;
  }
  // A value: the driver knows its size, the target tries them from the smallest.
  static const unsigned char zeros[256] = {};
  for (std::size_t size = 1; size <= sizeof(zeros); size *= 2)
    if (checked(clSetKernelArg(k, index, size, zeros), "value arg") == CL_SUCCESS) return true;
  for (std::size_t size : {12, 24, 48, 96})  // 3-vectors and small structs
    if (checked(clSetKernelArg(k, index, size, zeros), "value arg") == CL_SUCCESS) return true;
  return false;
}

void queryKernel(cl_kernel k, const std::size_t* local, cl_uint dims) {
  std::size_t wg = 0, compiled[3] = {}, out[3] = {};
  cl_ulong mem = 0;
  checked(clGetKernelWorkGroupInfo(k, session->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                                   nullptr), "CL_KERNEL_WORK_GROUP_SIZE");
  checked(clGetKernelWorkGroupInfo(k, session->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                   sizeof(compiled), compiled, nullptr), "compile size");
  checked(clGetKernelWorkGroupInfo(k, session->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(mem),
                                   &mem, nullptr), "CL_KERNEL_LOCAL_MEM_SIZE");
  checked(clGetKernelWorkGroupInfo(k, session->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(mem),
                                   &mem, nullptr), "CL_KERNEL_PRIVATE_MEM_SIZE");
  std::size_t in[3] = {local[0], dims > 1 ? local[1] : 1, 1};
  std::size_t maxSize = 0, count = 0;
  cl_int a = checked(clGetKernelSubGroupInfo(k, session->device,
                                             CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                             dims * sizeof(std::size_t), in, sizeof(maxSize),
                                             &maxSize, nullptr), "max sub-group size");
  cl_int b = checked(clGetKernelSubGroupInfo(k, session->device,
                                             CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                             dims * sizeof(std::size_t), in, sizeof(count), &count,
                                             nullptr), "sub-group count");
  // Sub-groups cover the work-group: count * size >= the work-group's items.
  if (a == CL_SUCCESS && b == CL_SUCCESS && in[0] * in[1] <= wg &&
      (maxSize == 0 || count * maxSize < in[0] * in[1]))
    violated("sub-groups do not cover the work-group", cl_int(count));
  std::size_t want = 1 + (local[0] & 3);
  checked(clGetKernelSubGroupInfo(k, session->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                  sizeof(want), &want, sizeof(out), out, nullptr),
          "local size for count");
  checked(clGetKernelSubGroupInfo(k, session->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, nullptr,
                                  sizeof(count), &count, nullptr), "max sub-groups");
  checked(clGetKernelSubGroupInfo(k, session->device, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0,
                                  nullptr, sizeof(count), &count, nullptr), "compile sub-groups");
}

void runKernel(cl_kernel k, uint8_t sel) {
  cl_uint numArgs = 0;
  if (checked(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(numArgs), &numArgs, nullptr),
              "CL_KERNEL_NUM_ARGS") != CL_SUCCESS)
    return;
  if (sel & 0x20) {
    cl_int err = CL_SUCCESS;
    cl_kernel clone = clCloneKernel(k, &err);
    checked(err, "clCloneKernel");
    if (clone) {
      cl_uint cloneArgs = 0;
      checked(clGetKernelInfo(clone, CL_KERNEL_NUM_ARGS, sizeof(cloneArgs), &cloneArgs, nullptr),
              "clone's CL_KERNEL_NUM_ARGS");
      if (cloneArgs != numArgs) violated("a clone with another argument count", cl_int(cloneArgs));
      runKernel(clone, sel & ~0x20);
      clReleaseKernel(clone);
      return;
    }
  }
  bool allSet = true;
  for (cl_uint i = 0; i < numArgs && allSet; ++i) allSet = setArgument(k, i);
  // The layer's hidden arguments begin at numArgs: never the application's to set.
  cl_mem buffer = session->buffers[0];
  for (std::size_t size : {std::size_t(4), sizeof(cl_mem)}) {
    cl_int err = clSetKernelArg(k, numArgs, size, &buffer);
    if (err != CL_INVALID_ARG_INDEX) violated("an argument past the last one accepted a value", err);
  }
  std::size_t compiled[3] = {};
  clGetKernelWorkGroupInfo(k, session->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                           sizeof(compiled), compiled, nullptr);
  cl_uint dims = (sel & 0x80) ? 2 : 1;
  std::size_t local[2] = {16, dims > 1 ? 2u : 1u};
  if (compiled[0]) {
    local[0] = compiled[0];
    local[1] = compiled[1];
    dims = compiled[1] > 1 ? 2 : 1;
  }
  std::size_t global[2] = {local[0] * 4, local[1] * 2};
  queryKernel(k, local, dims);
  if (!allSet) return;
  cl_event done = nullptr;
  cl_int err = checked(clEnqueueNDRangeKernel(session->queue, k, dims, nullptr, global,
                                              (sel & 0x40) && !compiled[0] ? nullptr : local, 0,
                                              nullptr, &done),
                       "clEnqueueNDRangeKernel");
  if (err == CL_SUCCESS) {
    ++reached.launched;
    checked(clWaitForEvents(1, &done), "clWaitForEvents");
    clReleaseEvent(done);
  }
}

cl_program buildFromBinaries(cl_program built, const char* options) {
  std::size_t size = 0;
  if (clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) !=
          CL_SUCCESS || size == 0)
    return nullptr;
  std::vector<unsigned char> binary(size);
  unsigned char* pointer = binary.data();
  checked(clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr),
          "CL_PROGRAM_BINARIES");
  const unsigned char* in = binary.data();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program again =
      clCreateProgramWithBinary(session->context, 1, &session->device, &size, &in, &status, &err);
  if (checked(err, "clCreateProgramWithBinary") != CL_SUCCESS) return nullptr;
  if (checked(clBuildProgram(again, 1, &session->device, options, nullptr, nullptr),
              "rebuild from binary") != CL_SUCCESS) {
    clReleaseProgram(again);
    return nullptr;
  }
  return again;
}

void buildLog(cl_program p) {
  std::size_t size = 0;
  cl_int err = clGetProgramBuildInfo(p, session->device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  if (checked(err, "log size") != CL_SUCCESS || size == 0) violated("a failed build without a log", err);
  std::string log(size, '\0');
  checked(clGetProgramBuildInfo(p, session->device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr),
          "CL_PROGRAM_BUILD_LOG");
}

void runInput(const uint8_t* data, std::size_t size) {
  const uint8_t sel = data[0];
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  static const uint32_t kMagic = 0x07230203u;
  bool il = text.size() >= 4 && std::memcmp(text.data(), &kMagic, 4) == 0;
  std::string header;
  if (!il) {
    std::size_t nul = text.find('\0');
    if (nul != std::string::npos) {
      header = text.substr(nul + 1);
      text.resize(nul);
    }
    std::ofstream(session->headerDir + "/fuzz.h", std::ios::binary | std::ios::trunc) << header;
  }
  // -cl-kernel-arg-info: PoCL says how an argument is declared only when asked at build time.
  std::string options = std::string(kOptions[sel & 7]) + " -cl-kernel-arg-info";
  if (!il) options = "-I " + session->headerDir + " " + options;

  cl_int err = CL_SUCCESS;
  cl_program program = nullptr;
  if (il) {
    program = clCreateProgramWithIL(session->context, text.data(), text.size(), &err);
  } else {
    const char* source = text.c_str();
    program = clCreateProgramWithSource(session->context, 1, &source, nullptr, &err);
  }
  if (checked(err, "create program") != CL_SUCCESS) return;
  ++reached.programs;

  if ((sel & 0x08) && !il) {
    cl_program headerProgram = nullptr;
    const char* headerText = header.c_str();
    headerProgram = clCreateProgramWithSource(session->context, 1, &headerText, nullptr, &err);
    const char* name = "fuzz.h";
    std::string compileOptions = std::string(kOptions[sel & 7]) + " -cl-kernel-arg-info";
    err = checked(clCompileProgram(program, 1, &session->device, compileOptions.c_str(),
                                   headerProgram ? 1 : 0, headerProgram ? &headerProgram : nullptr,
                                   headerProgram ? &name : nullptr, nullptr, nullptr),
                  "clCompileProgram");
    if (headerProgram) clReleaseProgram(headerProgram);
    if (err != CL_SUCCESS) {
      if (err == CL_COMPILE_PROGRAM_FAILURE) buildLog(program);
      clReleaseProgram(program);
      return;
    }
    cl_program linked =
        clLinkProgram(session->context, 1, &session->device, "", 1, &program, nullptr, nullptr, &err);
    checked(err, "clLinkProgram");
    clReleaseProgram(program);
    if (!linked) return;
    program = linked;
    if (err != CL_SUCCESS) {
      clReleaseProgram(program);
      return;
    }
  } else {
    err = checked(clBuildProgram(program, 1, &session->device, options.c_str(), nullptr, nullptr),
                  "clBuildProgram");
    if (err != CL_SUCCESS) {
      if (err == CL_BUILD_PROGRAM_FAILURE) buildLog(program);
      clReleaseProgram(program);
      return;
    }
  }
  if (sel & 0x10) {
    cl_program again = buildFromBinaries(program, options.c_str());
    clReleaseProgram(program);
    if (!again) return;
    program = again;
  }

  ++reached.built;
  cl_uint count = 0;
  if (checked(clCreateKernelsInProgram(program, 0, nullptr, &count), "kernel count") ==
          CL_SUCCESS && count > 0) {
    std::vector<cl_kernel> kernels(count);
    if (checked(clCreateKernelsInProgram(program, count, kernels.data(), nullptr), "kernels") ==
        CL_SUCCESS) {
      std::size_t numKernels = 0;
      checked(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof(numKernels), &numKernels,
                               nullptr), "CL_PROGRAM_NUM_KERNELS");
      if (numKernels != count) violated("CL_PROGRAM_NUM_KERNELS differs from the kernels", cl_int(count));
      reached.kernels += count;
      for (std::size_t i = 0; i < count && i < 8; ++i) runKernel(kernels[i], sel);
      for (cl_kernel k : kernels) clReleaseKernel(k);
    }
  }
  clReleaseProgram(program);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
#ifdef ISG_FUZZ_LAYER
  setenv("OPENCL_LAYERS", ISG_FUZZ_LAYER, 0);  // the build's layer unless the caller names one
#endif
  if (const char* failed = setUp()) {
    std::fprintf(stderr, "ERROR: api fuzzer: no OpenCL device to fuzz on (%s failed)\n", failed);
    std::exit(1);
  }
  return 0;
}

// A corpus that no longer launches anything tests nothing of the layer's launches.
extern "C" bool isgFuzzReached(char* line, std::size_t size) {
  std::snprintf(line, size, "%lu programs created, %lu built, %lu kernels, %lu launched",
                reached.programs, reached.built, reached.kernels, reached.launched);
  return reached.launched > 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  runInput(data, size);
  return 0;
}
