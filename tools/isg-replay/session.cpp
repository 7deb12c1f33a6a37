// SPDX-License-Identifier: MIT
#include "session.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "build_log.h"
#include "replay.h"

namespace isg::replay {

using isg::capture::Argument;
using isg::capture::MemoryObject;

namespace {

void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) fatal(what + " failed with " + clErrorName(err));
}

// ---- OpenCL helpers ----------------------------------------------------------------------------

// A string answer of clGetPlatformInfo / clGetDeviceInfo; "" when the query fails.
template <class Get, class Object, class Param>
std::string infoText(Get get, Object object, Param what) {
  size_t n = 0;
  if (get(object, what, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::string s(n, '\0');
  get(object, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
#define ISG_CL_ERRORS(X)                                                                       \
  X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) X(CL_COMPILER_NOT_AVAILABLE)                  \
  X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY)             \
  X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP) X(CL_IMAGE_FORMAT_MISMATCH)           \
  X(CL_IMAGE_FORMAT_NOT_SUPPORTED) X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE)                  \
  X(CL_MISALIGNED_SUB_BUFFER_OFFSET) X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)              \
  X(CL_COMPILE_PROGRAM_FAILURE) X(CL_LINKER_NOT_AVAILABLE) X(CL_LINK_PROGRAM_FAILURE)             \
  X(CL_DEVICE_PARTITION_FAILED) X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(CL_INVALID_VALUE)           \
  X(CL_INVALID_DEVICE_TYPE) X(CL_INVALID_PLATFORM) X(CL_INVALID_DEVICE) X(CL_INVALID_CONTEXT)     \
  X(CL_INVALID_QUEUE_PROPERTIES) X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR)               \
  X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) X(CL_INVALID_IMAGE_SIZE)         \
  X(CL_INVALID_SAMPLER) X(CL_INVALID_BINARY) X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM)    \
  X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME) X(CL_INVALID_KERNEL_DEFINITION)      \
  X(CL_INVALID_KERNEL) X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE)     \
  X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) X(CL_INVALID_WORK_GROUP_SIZE)            \
  X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET) X(CL_INVALID_EVENT_WAIT_LIST)          \
  X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION) X(CL_INVALID_BUFFER_SIZE)                           \
  X(CL_INVALID_GLOBAL_WORK_SIZE) X(CL_INVALID_PROPERTY) X(CL_INVALID_IMAGE_DESCRIPTOR)            \
  X(CL_INVALID_COMPILER_OPTIONS) X(CL_INVALID_LINKER_OPTIONS) X(CL_INVALID_DEVICE_PARTITION_COUNT)

}  // namespace

std::string clErrorName(cl_int err) {
  switch (err) {
#define ISG_CASE(name) \
  case name:           \
    return #name " (" + std::to_string(err) + ")";
    ISG_CL_ERRORS(ISG_CASE)
#undef ISG_CASE
    default:
      return "OpenCL error " + std::to_string(err);
  }
}

std::string platformText(cl_platform_id p, cl_platform_info what) {
  return infoText(clGetPlatformInfo, p, what);
}
std::string deviceText(cl_device_id d, cl_device_info what) {
  return infoText(clGetDeviceInfo, d, what);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool isIndex(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

bool matches(const std::string& want, size_t index, const std::vector<std::string>& names) {
  if (want.empty()) return index == 0;
  if (isIndex(want)) return std::stoul(want) == index;
  for (const std::string& n : names)
    if (lower(n).find(lower(want)) != std::string::npos) return true;
  return false;
}

void selectDevice(const Options& o, cl_platform_id* platformOut, cl_device_id* deviceOut) {
  cl_uint n = 0;
  check(clGetPlatformIDs(0, nullptr, &n), "clGetPlatformIDs");
  if (n == 0) fatal("no OpenCL platform");
  std::vector<cl_platform_id> platforms(n);
  check(clGetPlatformIDs(n, platforms.data(), nullptr), "clGetPlatformIDs");
  // A device named by substring alone is looked for on every platform.
  const bool anyPlatform = o.platform.empty() && !o.device.empty() && !isIndex(o.device);
  for (size_t p = 0; p < platforms.size(); ++p) {
    if (!anyPlatform && !matches(o.platform, p,
                                 {platformText(platforms[p], CL_PLATFORM_NAME),
                                  platformText(platforms[p], CL_PLATFORM_VENDOR)}))
      continue;
    cl_uint count = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devices(count);
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    for (size_t d = 0; d < devices.size(); ++d) {
      if (!matches(o.device, d, {deviceText(devices[d], CL_DEVICE_NAME)})) continue;
      *platformOut = platforms[p];
      *deviceOut = devices[d];
      return;
    }
    if (!anyPlatform) break;
  }
  fatal("no device matches --platform '" + o.platform + "' --device '" + o.device + "'");
}

std::string dims(const std::optional<std::vector<std::uint64_t>>& v) {
  if (!v) return "NULL";
  std::string out = "[";
  for (size_t i = 0; i < v->size(); ++i) out += (i ? ", " : "") + std::to_string((*v)[i]);
  return out + "]";
}
Replay::~Replay() {
  for (cl_sampler s : samplers) clReleaseSampler(s);
  for (cl_mem m : subBuffers) clReleaseMemObject(m);
  for (cl_mem m : memory)
    if (m) clReleaseMemObject(m);
  if (kernel) clReleaseKernel(kernel);
  if (program) clReleaseProgram(program);
  if (queue) clReleaseCommandQueue(queue);
  if (context) clReleaseContext(context);
}

void Replay::build(cl_device_id device) {
  cl_int err = CL_SUCCESS;
  context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
  // Argument types decide how outputs compare; a case captured without them asks the replay
  // build for them (the option changes what the driver reports, not the code).
  bool needTypes = false;
  for (const Argument& a : l.c.args) needTypes |= a.writable && a.typeName.empty();
  std::string used = options;
  if (needTypes && used.find("-cl-kernel-arg-info") == std::string::npos)
    used += " -cl-kernel-arg-info";
  if (l.c.programForm == "spirv") {
    // A program from SPIR-V: the module as the application passed it.
    program = clCreateProgramWithIL(context, l.source.data(), l.source.size(), &err);
    check(err, "clCreateProgramWithIL");
  } else {
    const char* text = l.source.c_str();
    const size_t length = l.source.size();
    program = clCreateProgramWithSource(context, 1, &text, &length, &err);
    check(err, "clCreateProgramWithSource");
  }
  err = clBuildProgram(program, 1, &device, used.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = isg::programBuildLog(program, device);
    const char* layers = std::getenv("OPENCL_LAYERS");
    const std::string hint =
        l.c.layerMode == "rewritten" && !(layers && *layers)
            ? "\n(the case was captured with the layer rewriting Intel builtins; replay it "
              "through the layer: OPENCL_LAYERS=.../libIntelSubgroupsLayer.so)"
            : "";
    // The brief: the log's first line naming an error, else its first line with text.
    std::string first, firstError;
    for (size_t at = 0; at < log.size() && firstError.empty();) {
      size_t end = log.find('\n', at);
      if (end == std::string::npos) end = log.size();
      const std::string line = log.substr(at, end - at);
      const size_t b = line.find_first_not_of(" \t\r");
      if (b != std::string::npos && first.empty()) first = line.substr(b);
      if (b != std::string::npos && line.find("error") != std::string::npos)
        firstError = line.substr(b);
      at = end + 1;
    }
    if (!firstError.empty()) first = firstError;
    fatal("the program does not build here (" + clErrorName(err) + "):\n" + log + hint,
          "build failed (" + clErrorName(err) + ")" + (first.empty() ? "" : ": " + first) +
              (hint.empty() ? "" : " (captured rewritten: replay through the layer)"));
  }
  kernel = clCreateKernel(program, l.c.kernelName.c_str(), &err);
  check(err, "clCreateKernel(" + l.c.kernelName + ")");
  cl_uint numArgs = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof numArgs, &numArgs, nullptr);
  if (numArgs != l.c.args.size())
    fatal("the kernel has " + std::to_string(numArgs) + " arguments here, the case " +
          std::to_string(l.c.args.size()));
  for (const Argument& a : l.c.args) {
    std::string type = a.typeName;
    if (type.empty()) {
      size_t n = 0;
      if (clGetKernelArgInfo(kernel, a.index, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &n) ==
              CL_SUCCESS &&
          n > 1) {
        type.assign(n, '\0');
        clGetKernelArgInfo(kernel, a.index, CL_KERNEL_ARG_TYPE_NAME, n, type.data(), nullptr);
        while (!type.empty() && type.back() == '\0') type.pop_back();
      }
    }
    typeNames.push_back(type);
  }
}

void Replay::createMemory(cl_device_id device) {
  for (const MemoryObject& m : l.c.memory) {
    cl_int err = CL_SUCCESS;
    // The kernel's access as the application declared it; host access is left open so the
    // replay can write the inputs and read the outputs.
    const cl_mem_flags flags =
        m.flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
    size_t region[3] = {1, 1, 1};
    if (m.kind == "buffer") {
      region[0] = m.size;
      memory.push_back(clCreateBuffer(context, flags, m.size, nullptr, &err));
      check(err, "creating buffer " + std::to_string(m.id) + " (" + std::to_string(m.size) +
                     " bytes)");
    } else if (m.kind == "image") {
      cl_bool images = CL_FALSE;
      clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
      if (!images) fatal("the case has images; this device has no image support");
      cl_image_format format{m.channelOrder, m.channelDataType};
      cl_image_desc desc{};
      desc.image_type = m.imageType;
      desc.image_width = m.width;
      desc.image_height = m.height;
      desc.image_depth = m.depth;
      desc.image_array_size = m.arraySize;
      region[0] = m.width;
      switch (m.imageType) {
        case CL_MEM_OBJECT_IMAGE1D_BUFFER: {
          cl_mem backing = clCreateBuffer(context, flags, m.size, nullptr, &err);
          check(err, "creating the buffer of image " + std::to_string(m.id));
          subBuffers.push_back(backing);  // released with the others
          desc.buffer = backing;
          break;
        }
        case CL_MEM_OBJECT_IMAGE1D_ARRAY:
          region[1] = m.arraySize;
          break;
        case CL_MEM_OBJECT_IMAGE2D:
          region[1] = m.height;
          break;
        case CL_MEM_OBJECT_IMAGE2D_ARRAY:
          region[1] = m.height;
          region[2] = m.arraySize;
          break;
        case CL_MEM_OBJECT_IMAGE3D:
          region[1] = m.height;
          region[2] = m.depth;
          break;
        default:
          break;
      }
      memory.push_back(clCreateImage(context, flags, &format, &desc, nullptr, &err));
      check(err, "creating image " + std::to_string(m.id));
    } else {
      fatal("memory " + std::to_string(m.id) + " has unknown kind '" + m.kind + "'");
    }
    regions.push_back({region[0], region[1], region[2]});
  }
}

void Replay::setArguments() {
  for (const Argument& a : l.c.args) {
    const std::string what = "setting argument " + std::to_string(a.index);
    if (a.kind == "scalar") {
      std::vector<unsigned char> bytes;
      if (!isg::capture::fromHex(a.valueHex, &bytes) || bytes.size() != a.size)
        fatal("argument " + std::to_string(a.index) + ": malformed value_hex");
      check(clSetKernelArg(kernel, a.index, bytes.size(), bytes.data()), what);
    } else if (a.kind == "local") {
      check(clSetKernelArg(kernel, a.index, a.size, nullptr), what);
    } else if (a.kind == "null_buffer") {
      cl_mem none = nullptr;
      check(clSetKernelArg(kernel, a.index, sizeof none, &none), what);
    } else if (a.kind == "buffer" && a.subBuffer) {
      cl_buffer_region region{a.origin, a.size};
      cl_int err = CL_SUCCESS;
      cl_mem sub =
          clCreateSubBuffer(memory[a.memory], 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (err == CL_MISALIGNED_SUB_BUFFER_OFFSET)
        fatal("argument " + std::to_string(a.index) + ": sub-buffer origin " +
              std::to_string(a.origin) + " is misaligned for this device");
      check(err, "creating the sub-buffer of argument " + std::to_string(a.index));
      subBuffers.push_back(sub);
      check(clSetKernelArg(kernel, a.index, sizeof sub, &sub), what);
    } else if (a.kind == "buffer" || a.kind == "image") {
      check(clSetKernelArg(kernel, a.index, sizeof(cl_mem), &memory[a.memory]), what);
    } else if (a.kind == "sampler") {
      cl_int err = CL_SUCCESS;
      cl_sampler s = clCreateSampler(context, a.normalizedCoords ? CL_TRUE : CL_FALSE,
                                     a.addressingMode, a.filterMode, &err);
      check(err, "creating the sampler of argument " + std::to_string(a.index));
      samplers.push_back(s);
      check(clSetKernelArg(kernel, a.index, sizeof s, &s), what);
    } else {
      fatal("argument " + std::to_string(a.index) + " has unknown kind '" + a.kind + "'");
    }
  }
}

// Every run starts from the captured inputs, so repeated runs are the same run.
void Replay::restoreInputs() {
  const size_t origin[3] = {0, 0, 0};
  for (size_t i = 0; i < memory.size(); ++i) {
    const std::string& data = l.before[i];
    if (l.c.memory[i].kind == "image")
      check(clEnqueueWriteImage(queue, memory[i], CL_TRUE, origin, regions[i].data(), 0, 0,
                                data.data(), 0, nullptr, nullptr),
            "writing image " + std::to_string(i));
    else
      check(clEnqueueWriteBuffer(queue, memory[i], CL_TRUE, 0, data.size(), data.data(), 0,
                                 nullptr, nullptr),
            "writing buffer " + std::to_string(i));
  }
}

// Returns the kernel time in ns (profiling), or the host wall time when profiling fails.
double Replay::run(bool* profiled) {
  const auto& nd = l.c.ndrange;
  std::vector<size_t> global(nd.globalSize.begin(), nd.globalSize.end());
  std::vector<size_t> offset, local;
  if (nd.globalOffset) offset.assign(nd.globalOffset->begin(), nd.globalOffset->end());
  if (nd.localSize) local.assign(nd.localSize->begin(), nd.localSize->end());
  cl_event done = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const cl_int launched = clEnqueueNDRangeKernel(queue, kernel, nd.workDim,
                               nd.globalOffset ? offset.data() : nullptr, global.data(),
                               nd.localSize ? local.data() : nullptr, 0, nullptr, &done);
  if (launched != CL_SUCCESS)
    fatal("clEnqueueNDRangeKernel failed with " + clErrorName(launched),
          "launch failed: clEnqueueNDRangeKernel returned " + clErrorName(launched));
  check(clWaitForEvents(1, &done), "waiting for the kernel");
  const auto end = std::chrono::steady_clock::now();
  cl_int status = CL_COMPLETE;
  clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  cl_ulong t0 = 0, t1 = 0;
  *profiled = clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof t0, &t0,
                                      nullptr) == CL_SUCCESS &&
              clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr) ==
                  CL_SUCCESS &&
              t1 >= t0;
  clReleaseEvent(done);
  if (status < 0)
    fatal("the kernel failed with " + clErrorName(status),
          "launch failed: the kernel ended with " + clErrorName(status));
  if (*profiled) return static_cast<double>(t1 - t0);
  return std::chrono::duration<double, std::nano>(end - start).count();
}

std::vector<std::string> Replay::readOutputs() {
  std::vector<std::string> out(memory.size());
  const size_t origin[3] = {0, 0, 0};
  for (size_t i = 0; i < memory.size(); ++i) {
    if (l.after[i].empty()) continue;
    out[i].assign(l.c.memory[i].size, '\0');
    if (l.c.memory[i].kind == "image")
      check(clEnqueueReadImage(queue, memory[i], CL_TRUE, origin, regions[i].data(), 0, 0,
                               out[i].data(), 0, nullptr, nullptr),
            "reading image " + std::to_string(i));
    else
      check(clEnqueueReadBuffer(queue, memory[i], CL_TRUE, 0, out[i].size(), out[i].data(), 0,
                                nullptr, nullptr),
            "reading buffer " + std::to_string(i));
  }
  return out;
}

}  // namespace isg::replay
