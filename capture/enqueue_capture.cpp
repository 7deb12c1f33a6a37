// SPDX-License-Identifier: MIT
// Capture of kernel enqueues into isg-kernel-case directories (case_format.h,
// docs/compare.md). Everything reaches the driver through next(): the layer's own entries must
// not see (or capture) the reads capture makes.
#include "enqueue_capture.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "arg_values.h"
#include "capture_policy.h"
#include "case_format.h"
#include "driver_queries.h"
#include "layer_api.h"
#include "layer_facts.h"

namespace isg::capture {

// ---- argument tracking -----------------------------------------------------------------------

namespace {

struct ArgInfo {
  bool known = false;
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier typeQualifier = 0;
  std::string typeName, name;
};

struct KernelArgs {
  std::vector<ArgValue> values;
  // clGetKernelArgInfo answers, fetched at the first capture of the kernel.
  bool infoLoaded = false;
  std::vector<ArgInfo> info;
  std::vector<std::string> infoNotes;
};

// Argument indices are validated by the driver before they are remembered; this bound only keeps
// a misbehaving driver from making the layer allocate without limit.
constexpr cl_uint kMaxArgs = 4096;

class ArgTable {
 public:
  template <class Update>
  void update(cl_kernel kernel, Update&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    fn(kernels_[kernel]);
  }
  bool snapshot(cl_kernel kernel, KernelArgs* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(kernel);
    if (it == kernels_.end()) return false;
    *out = it->second;
    return true;
  }
  void forget(cl_kernel kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.erase(kernel);
  }
  void copy(cl_kernel from, cl_kernel to) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(from);
    if (it != kernels_.end()) kernels_[to] = it->second;
  }

 private:
  std::mutex mutex_;
  std::map<cl_kernel, KernelArgs> kernels_;
};

// Never destroyed, like the other registries: a driver thread may still call in at exit.
ArgTable& argTable() {
  static auto* table = new ArgTable;
  return *table;
}

template <class Body>
void quietly(const char* what, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    ISG_LOG_WARNING("capture: " << what << ": internal error; capture goes on without it");
  }
}

}  // namespace

void rememberArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) noexcept {
  if (index >= kMaxArgs) return;
  quietly("clSetKernelArg", [&] {
    ArgValue v;
    v.set(size, value);
    argTable().update(kernel, [&](KernelArgs& k) {
      if (k.values.size() <= index) k.values.resize(index + 1);
      k.values[index] = std::move(v);
    });
  });
}

void rememberSvmArg(cl_kernel kernel, cl_uint index, const void* pointer) noexcept {
  if (index >= kMaxArgs) return;
  quietly("clSetKernelArgSVMPointer", [&] {
    argTable().update(kernel, [&](KernelArgs& k) {
      if (k.values.size() <= index) k.values.resize(index + 1);
      k.values[index].setSvm(pointer);
    });
  });
}

void copyArgs(cl_kernel from, cl_kernel to) noexcept {
  quietly("clCloneKernel", [&] { argTable().copy(from, to); });
}

void beforeReleaseKernel(cl_kernel kernel) noexcept {
  quietly("clReleaseKernel", [&] {
    cl_uint references = 0;
    // A handle the driver rejects, or one still referenced, keeps its arguments.
    if (kernelValue(kernel, CL_KERNEL_REFERENCE_COUNT, &references) == CL_SUCCESS &&
        references == 1)
      argTable().forget(kernel);
  });
}

// ---- capturing one enqueue ---------------------------------------------------------------------

namespace {

// Aborts one capture; the message says why in the log.
struct CaptureError {
  std::string what;
};

[[noreturn]] void failCapture(const std::string& what) { throw CaptureError{what}; }

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) failCapture(std::string(what) + " failed with " + std::to_string(err));
}

std::atomic<std::uint64_t> g_matchingEnqueues{0};
std::atomic<std::uint64_t> g_sequence{0};

// One fixed-size answer of a driver clGet*Info entry (`get`, called `name`).
template <class T, class Get, class Object, class Param>
T driverValue(Get get, const char* name, Object object, Param param) {
  T value{};
  if (!get) failCapture(std::string("the driver has no ") + name);
  check(get(object, param, sizeof value, &value, nullptr), name);
  return value;
}
template <class T>
T memValue(cl_mem mem, cl_mem_info param) {
  return driverValue<T>(next().clGetMemObjectInfo, "clGetMemObjectInfo", mem, param);
}
template <class T>
T imageValue(cl_mem mem, cl_image_info param) {
  return driverValue<T>(next().clGetImageInfo, "clGetImageInfo", mem, param);
}
template <class T>
T samplerValue(cl_sampler sampler, cl_sampler_info param) {
  return driverValue<T>(next().clGetSamplerInfo, "clGetSamplerInfo", sampler, param);
}

std::string platformString(cl_platform_id platform, cl_platform_info param) {
  std::string out;
  queryString(ISG_QUERY_LAMBDA(clGetPlatformInfo, platform, param), &out);
  return out;
}

// clGetKernelArgInfo for every user argument of `kernel`. Nothing when the driver does not tell.
bool queryArgInfo(cl_kernel kernel, cl_uint count, std::vector<ArgInfo>* out) {
  if (!next().clGetKernelArgInfo) return false;
  out->assign(count, ArgInfo{});
  for (cl_uint i = 0; i < count; ++i) {
    ArgInfo& a = (*out)[i];
    if (next().clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a.address,
                                  &a.address, nullptr) != CL_SUCCESS)
      return false;
    next().clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof a.access, &a.access,
                              nullptr);
    next().clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof a.typeQualifier,
                              &a.typeQualifier, nullptr);
    queryString(ISG_QUERY_LAMBDA(clGetKernelArgInfo, kernel, i, CL_KERNEL_ARG_TYPE_NAME),
                &a.typeName);
    queryString(ISG_QUERY_LAMBDA(clGetKernelArgInfo, kernel, i, CL_KERNEL_ARG_NAME), &a.name);
    a.known = true;
  }
  return true;
}

// Drivers that keep argument information for programs built with -cl-kernel-arg-info only:
// the driver program is built once more with that option, on the side, to ask. It is the very
// source and options the driver ran (for rewritten programs the shadow's), so the user
// arguments are the same.
bool argInfoFromSideBuild(cl_kernel kernel, cl_device_id device, const std::string& name,
                          cl_uint count, std::vector<ArgInfo>* out) {
  const cl_icd_dispatch& d = next();
  if (!d.clCreateProgramWithSource || !d.clBuildProgram || !d.clCreateKernel ||
      !d.clReleaseKernel || !d.clReleaseProgram)
    return false;
  cl_program driverProgram = nullptr;
  cl_context context = nullptr;
  std::string source, options;
  if (kernelValue(kernel, CL_KERNEL_PROGRAM, &driverProgram) != CL_SUCCESS ||
      programValue(driverProgram, CL_PROGRAM_CONTEXT, &context) != CL_SUCCESS ||
      programString(driverProgram, CL_PROGRAM_SOURCE, &source) != CL_SUCCESS || source.empty())
    return false;
  programBuildString(driverProgram, device, CL_PROGRAM_BUILD_OPTIONS, &options);
  options += " -cl-kernel-arg-info";
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program side = d.clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (!side) return false;
  bool ok = false;
  if (d.clBuildProgram(side, 1, &device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
    if (cl_kernel k = d.clCreateKernel(side, name.c_str(), &err)) {
      ok = queryArgInfo(k, count, out);
      d.clReleaseKernel(k);
    }
  }
  d.clReleaseProgram(side);
  return ok;
}

std::string addressName(cl_kernel_arg_address_qualifier q) {
  switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
      return "global";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      return "constant";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      return "local";
    default:
      return "private";
  }
}

std::string accessName(cl_kernel_arg_access_qualifier q) {
  switch (q) {
    case CL_KERNEL_ARG_ACCESS_READ_ONLY:
      return "read_only";
    case CL_KERNEL_ARG_ACCESS_WRITE_ONLY:
      return "write_only";
    case CL_KERNEL_ARG_ACCESS_READ_WRITE:
      return "read_write";
    default:
      return "none";
  }
}

std::vector<std::string> typeQualifierNames(cl_kernel_arg_type_qualifier q) {
  std::vector<std::string> out;
  if (q & CL_KERNEL_ARG_TYPE_CONST) out.push_back("const");
  if (q & CL_KERNEL_ARG_TYPE_RESTRICT) out.push_back("restrict");
  if (q & CL_KERNEL_ARG_TYPE_VOLATILE) out.push_back("volatile");
  if (q & CL_KERNEL_ARG_TYPE_PIPE) out.push_back("pipe");
  return out;
}

bool isImageObject(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         t == CL_MEM_OBJECT_IMAGE1D_BUFFER || t == CL_MEM_OBJECT_IMAGE2D ||
         t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

// What one capture carries from before the enqueue to after it.
struct Pending {
  Case c;
  cl_command_queue queue = nullptr;
  struct Memory {
    cl_mem handle = nullptr;
    bool image = false;
    size_t region[3] = {1, 1, 1};
    bool writable = false;
    std::string before, after;
  };
  std::vector<Memory> memory;  // parallel to c.memory
  std::map<cl_mem, unsigned> ids;
  std::string source;
  bool reserved = false;    // holds an ISG_CAPTURE_MAX slot (capture_policy.h)
  std::uint64_t bytes = 0;  // holds this much of ISG_CAPTURE_MAX_MB: blobs, program, JSON
  void release() {          // what a capture that will not be written gives back
    if (reserved) releaseCase();
    if (bytes) releaseBytes(bytes);
    reserved = false, bytes = 0;
  }
};

namespace {

void describeDevice(Pending& p, cl_device_id device) {
  std::map<std::string, std::string>& d = p.c.device;
  static const std::pair<const char*, cl_device_info> kStrings[] = {
      {"name", CL_DEVICE_NAME},
      {"vendor", CL_DEVICE_VENDOR},
      {"version", CL_DEVICE_VERSION},
      {"driver_version", CL_DRIVER_VERSION},
      {"opencl_c_version", CL_DEVICE_OPENCL_C_VERSION},
      {"extensions", CL_DEVICE_EXTENSIONS}};
  for (const auto& [key, param] : kStrings) deviceString(device, param, &d[key]);
  cl_platform_id platform = nullptr;
  if (deviceValue(device, CL_DEVICE_PLATFORM, &platform) == CL_SUCCESS && platform) {
    d["platform_name"] = platformString(platform, CL_PLATFORM_NAME);
    d["platform_vendor"] = platformString(platform, CL_PLATFORM_VENDOR);
    d["platform_version"] = platformString(platform, CL_PLATFORM_VERSION);
  }
}

unsigned memoryForBuffer(Pending& p, cl_mem root) {
  if (auto it = p.ids.find(root); it != p.ids.end()) return it->second;
  MemoryObject m;
  m.id = static_cast<unsigned>(p.c.memory.size());
  m.kind = "buffer";
  m.flags = memValue<cl_mem_flags>(root, CL_MEM_FLAGS);
  m.size = memValue<size_t>(root, CL_MEM_SIZE);
  if (m.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
    failCapture("a buffer argument was created without host read access");
  Pending::Memory mem;
  mem.handle = root;
  mem.region[0] = m.size;
  p.ids[root] = m.id;
  p.c.memory.push_back(m);
  p.memory.push_back(mem);
  return m.id;
}

unsigned memoryForImage(Pending& p, cl_mem image, cl_mem_object_type type) {
  if (auto it = p.ids.find(image); it != p.ids.end()) return it->second;
  MemoryObject m;
  m.id = static_cast<unsigned>(p.c.memory.size());
  m.kind = "image";
  m.flags = memValue<cl_mem_flags>(image, CL_MEM_FLAGS);
  if (m.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
    failCapture("an image argument was created without host read access");
  m.imageType = static_cast<std::uint32_t>(type);
  const cl_image_format format = imageValue<cl_image_format>(image, CL_IMAGE_FORMAT);
  m.channelOrder = format.image_channel_order;
  m.channelDataType = format.image_channel_data_type;
  m.elementSize = imageValue<size_t>(image, CL_IMAGE_ELEMENT_SIZE);
  m.width = imageValue<size_t>(image, CL_IMAGE_WIDTH);
  m.height = imageValue<size_t>(image, CL_IMAGE_HEIGHT);
  m.depth = imageValue<size_t>(image, CL_IMAGE_DEPTH);
  m.arraySize = imageValue<size_t>(image, CL_IMAGE_ARRAY_SIZE);
  Pending::Memory mem;
  mem.handle = image;
  mem.image = true;
  mem.region[0] = m.width;
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      mem.region[1] = m.arraySize;
      break;
    case CL_MEM_OBJECT_IMAGE2D:
      mem.region[1] = m.height;
      break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      mem.region[1] = m.height;
      mem.region[2] = m.arraySize;
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      mem.region[1] = m.height;
      mem.region[2] = m.depth;
      break;
    default:
      break;
  }
  m.size = m.elementSize * mem.region[0] * mem.region[1] * mem.region[2];
  p.ids[image] = m.id;
  p.c.memory.push_back(m);
  p.memory.push_back(mem);
  return m.id;
}

void describeArgument(Pending& p, cl_uint index, const ArgValue& v, const ArgInfo& info) {
  Argument a;
  a.index = index;
  a.name = info.name;
  a.typeName = info.typeName;
  a.addressQualifier = addressName(info.address);
  a.accessQualifier = accessName(info.access);
  a.typeQualifiers = typeQualifierNames(info.typeQualifier);
  const std::string where =
      "argument " + std::to_string(index) + (info.name.empty() ? "" : " (" + info.name + ")");
  if (v.kind == ArgValue::Kind::Unset) failCapture(where + " was never set");
  if (v.kind == ArgValue::Kind::Svm) failCapture(where + " is an SVM pointer, which cases cannot hold");
  if (info.typeQualifier & CL_KERNEL_ARG_TYPE_PIPE) failCapture(where + " is a pipe");
  if (info.typeName.find("queue_t") != std::string::npos) failCapture(where + " is a device queue");

  const bool imageName = info.typeName.find("image") != std::string::npos;
  if (info.address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
    a.kind = "local";
    a.size = v.size;
  } else if (info.typeName.find("sampler_t") != std::string::npos) {
    if (v.byteCount() != sizeof(cl_sampler)) failCapture(where + ": unexpected sampler size");
    cl_sampler sampler = nullptr;
    std::memcpy(&sampler, v.bytes(), sizeof sampler);
    a.kind = "sampler";
    a.normalizedCoords = samplerValue<cl_bool>(sampler, CL_SAMPLER_NORMALIZED_COORDS) != CL_FALSE;
    a.addressingMode = samplerValue<cl_addressing_mode>(sampler, CL_SAMPLER_ADDRESSING_MODE);
    a.filterMode = samplerValue<cl_filter_mode>(sampler, CL_SAMPLER_FILTER_MODE);
  } else if (info.address == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
             info.address == CL_KERNEL_ARG_ADDRESS_CONSTANT || imageName) {
    cl_mem mem = nullptr;
    if (v.kind != ArgValue::Kind::Local) {
      if (v.byteCount() != sizeof(cl_mem)) failCapture(where + ": unexpected memory-object size");
      std::memcpy(&mem, v.bytes(), sizeof mem);
    }
    if (!mem) {
      a.kind = "null_buffer";
    } else {
      const auto type = memValue<cl_mem_object_type>(mem, CL_MEM_TYPE);
      const auto flags = memValue<cl_mem_flags>(mem, CL_MEM_FLAGS);
      const bool kernelMayWrite = !(flags & CL_MEM_READ_ONLY);
      if (type == CL_MEM_OBJECT_BUFFER) {
        cl_mem parent = memValue<cl_mem>(mem, CL_MEM_ASSOCIATED_MEMOBJECT);
        a.kind = "buffer";
        a.subBuffer = parent != nullptr;
        a.origin = a.subBuffer ? memValue<size_t>(mem, CL_MEM_OFFSET) : 0;
        a.size = memValue<size_t>(mem, CL_MEM_SIZE);
        a.memory = memoryForBuffer(p, a.subBuffer ? parent : mem);
        a.writable = kernelMayWrite && info.address != CL_KERNEL_ARG_ADDRESS_CONSTANT &&
                     !(info.typeQualifier & CL_KERNEL_ARG_TYPE_CONST);
      } else if (isImageObject(type)) {
        a.kind = "image";
        a.memory = memoryForImage(p, mem, type);
        a.writable = kernelMayWrite && info.access != CL_KERNEL_ARG_ACCESS_READ_ONLY;
        if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
            memValue<cl_mem>(mem, CL_MEM_ASSOCIATED_MEMOBJECT) != nullptr)
          p.c.notes.push_back(where + ": an image made from a buffer is recorded as a plain " +
                              "image; aliasing with the buffer is not replayed");
      } else {
        failCapture(where + ": memory object of unsupported type " + std::to_string(type));
      }
      if (a.writable) p.memory[a.memory].writable = true;
    }
  } else {
    a.kind = "scalar";
    a.size = v.size;
    a.valueHex = toHex(v.bytes(), v.byteCount());
  }
  p.c.args.push_back(std::move(a));
}

void readMemory(const Pending& p, const Pending::Memory& m, std::string* out) {
  const cl_icd_dispatch& d = next();
  const size_t size = p.c.memory[&m - p.memory.data()].size;
  out->assign(size, '\0');
  if (m.image) {
    if (!d.clEnqueueReadImage) failCapture("the driver has no clEnqueueReadImage");
    const size_t origin[3] = {0, 0, 0};
    check(d.clEnqueueReadImage(p.queue, m.handle, CL_TRUE, origin, m.region, 0, 0, out->data(), 0,
                               nullptr, nullptr),
          "reading an image argument");
  } else {
    if (!d.clEnqueueReadBuffer) failCapture("the driver has no clEnqueueReadBuffer");
    check(d.clEnqueueReadBuffer(p.queue, m.handle, CL_TRUE, 0, size, out->data(), 0, nullptr,
                                nullptr),
          "reading a buffer argument");
  }
}

void finishQueue(cl_command_queue queue) {
  if (!next().clFinish) failCapture("the driver has no clFinish");
  check(next().clFinish(queue), "clFinish");
}

// The inputs are read once everything the kernel waits for is done. A wait on a user event the
// application has not signalled yet would never return (the application signals it after this
// enqueue), so such an enqueue is not captured.
void waitForInputs(const EnqueueCapture::Launch& l) {
  for (cl_uint i = 0; l.events && i < l.numEvents; ++i) {
    cl_command_type type = 0;
    cl_int status = CL_COMPLETE;
    if (!next().clGetEventInfo) break;
    next().clGetEventInfo(l.events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
    next().clGetEventInfo(l.events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr);
    if (type == CL_COMMAND_USER && status != CL_COMPLETE)
      failCapture("the enqueue waits on a user event that is not complete yet");
  }
  if (l.numEvents && l.events) {
    if (!next().clWaitForEvents) failCapture("the driver has no clWaitForEvents");
    // An event that failed fails the kernel too; the enqueue is then not recorded (after()).
    next().clWaitForEvents(l.numEvents, l.events);
  }
  finishQueue(l.queue);
}

void describeLaunch(Pending& p, const EnqueueCapture::Launch& l, cl_device_id device) {
  const cl_kernel kernel = l.kernel;
  p.c.api = l.api;
  p.c.pid = static_cast<std::uint64_t>(::getpid());
  p.c.capturedAt = utcNow();
  describeDevice(p, device);

  // What the layer did with the kernel's program.
  const LayerFacts facts = layerFacts(kernel, device);
  cl_program appProgram = facts.appProgram;
  if (!appProgram) check(kernelValue(kernel, CL_KERNEL_PROGRAM, &appProgram), "CL_KERNEL_PROGRAM");
  if (config().DISABLE) {
    p.c.layerMode = "capture-only";
  } else {
    p.c.layerMode = facts.rewritten ? "rewritten" : "pass-through";
    p.c.strategy = facts.strategy;
    p.c.subGroupSize = facts.subGroupSize;
  }

  // The application's source or SPIR-V module and options, not what the driver was given. A
  // module the layer holds comes from its record (a driver without IL has only a placeholder);
  // one the driver took as it is, from the driver.
  if (facts.spirv) {
    p.source = *facts.spirv;
  } else {
    check(programString(appProgram, CL_PROGRAM_SOURCE, &p.source), "CL_PROGRAM_SOURCE");
    // The module's bytes as they are (a string query would drop trailing zero bytes).
    std::vector<char> il;
    if (p.source.empty() &&
        queryArray(ISG_QUERY_LAMBDA(clGetProgramInfo, appProgram, CL_PROGRAM_IL), &il) == CL_SUCCESS &&
        !il.empty()) {
      p.source.assign(il.data(), il.size());
      p.c.programForm = "spirv";
    }
  }
  if (facts.spirv) p.c.programForm = "spirv";
  if (p.c.programForm == "spirv") p.c.sourceFile = "program.spv";
  if (p.source.empty())
    failCapture("the program was not created from source or SPIR-V (binary or a link of "
                "compiled programs); a case needs the program");
  if (facts.appOptions)
    p.c.buildOptions = *facts.appOptions;
  else
    programBuildString(appProgram, device, CL_PROGRAM_BUILD_OPTIONS, &p.c.buildOptions);

  NdRange& nd = p.c.ndrange;
  nd.workDim = l.workDim;
  if (l.workDim < 1 || l.workDim > 3 || !l.globalSize) failCapture("invalid ND-range");
  auto dims = [&](const size_t* v) { return std::vector<std::uint64_t>(v, v + l.workDim); };
  nd.globalSize = dims(l.globalSize);
  if (l.globalOffset) nd.globalOffset = dims(l.globalOffset);
  if (l.localSize) nd.localSize = dims(l.localSize);

  // The arguments, as the application set them.
  cl_uint numArgs = 0;
  if (facts.rewritten)
    numArgs = facts.numUserArgs;
  else
    check(kernelValue(kernel, CL_KERNEL_NUM_ARGS, &numArgs), "CL_KERNEL_NUM_ARGS");
  KernelArgs args;
  argTable().snapshot(kernel, &args);
  if (!args.infoLoaded) {
    if (!queryArgInfo(kernel, numArgs, &args.info) &&
        !argInfoFromSideBuild(kernel, device, p.c.kernelName, numArgs, &args.info))
      failCapture("the driver gives no kernel argument information, even for a build with " +
                  std::string("-cl-kernel-arg-info"));
    args.infoLoaded = true;
    argTable().update(kernel, [&](KernelArgs& k) {
      k.info = args.info;
      k.infoLoaded = true;
    });
  }
  args.values.resize(std::max<size_t>(args.values.size(), numArgs));
  args.info.resize(numArgs);
  for (cl_uint i = 0; i < numArgs; ++i) describeArgument(p, i, args.values[i], args.info[i]);
}

void writeCase(Pending& p) {
  namespace fs = std::filesystem;
  const fs::path base(config().CAPTURE_DIR);
  std::error_code ec;
  fs::create_directories(base, ec);
  char seq[16];
  std::snprintf(seq, sizeof seq, "%04llu",
                static_cast<unsigned long long>(g_sequence.fetch_add(1) + 1));
  const std::string name = fileSafe(p.c.kernelName) + "-" + std::to_string(p.c.pid) + "-" + seq;
  // Written under a hidden name and renamed when complete: a directory named like a case is
  // always a whole case.
  const fs::path partial = base / ("." + name + ".partial");
  const fs::path final = base / name;
  fs::remove_all(partial, ec);
  if (!fs::create_directories(partial, ec))
    failCapture("cannot create " + partial.string() + ": " + ec.message());
  bool ok = writeFile((partial / p.c.sourceFile).string(), p.source);
  for (size_t i = 0; i < p.memory.size(); ++i) {
    MemoryObject& m = p.c.memory[i];
    m.before = "mem" + std::to_string(i) + ".before.bin";
    ok = ok && writeFile((partial / m.before).string(), p.memory[i].before);
    if (p.memory[i].writable) {
      m.after = "mem" + std::to_string(i) + ".after.bin";
      ok = ok && writeFile((partial / m.after).string(), p.memory[i].after);
    }
  }
  ok = ok && writeFile((partial / kCaseFile).string(), toJson(p.c));
  if (ok) fs::rename(partial, final, ec);
  if (!ok || ec) {
    fs::remove_all(partial, ec);
    failCapture("cannot write the case to " + base.string());
  }
  ISG_LOG_INFO("captured kernel " << p.c.kernelName << " (enqueue " << p.c.enqueueIndex << ") to "
                                  << final.string());
}

}  // namespace

EnqueueCapture::EnqueueCapture(const Launch& launch) noexcept {
  if (!enabled()) return;
  std::string kernelName;
  try {
    if (kernelString(launch.kernel, CL_KERNEL_FUNCTION_NAME, &kernelName) != CL_SUCCESS)
      return;  // an invalid kernel: the driver reports it
    if (!nameSelected(kernelName)) return;
    cl_device_id device = nullptr;
    if (!next().clGetCommandQueueInfo) failCapture("the driver has no clGetCommandQueueInfo");
    check(next().clGetCommandQueueInfo(launch.queue, CL_QUEUE_DEVICE, sizeof device, &device,
                                       nullptr),
          "CL_QUEUE_DEVICE");
    if (config().CAPTURE_REWRITTEN_ONLY &&
        (config().DISABLE || !layerFacts(launch.kernel, device).rewritten))
      return;
    const std::uint64_t ordinal = ++g_matchingEnqueues;
    if (config().CAPTURE_ENQUEUE != 0 && ordinal != config().CAPTURE_ENQUEUE) return;
    if (!withinPerKernel(kernelName)) return;
    if (!reserveCase(kernelName)) return;
    auto p = std::make_unique<Pending>();
    p->reserved = true;
    p->queue = launch.queue;
    p->c.kernelName = kernelName;
    p->c.enqueueIndex = ordinal;
    pending_ = std::move(p);
    describeLaunch(*pending_, launch, device);
    std::uint64_t bytes = pending_->source.size() + 4096;
    for (size_t i = 0; i < pending_->memory.size(); ++i)
      bytes += pending_->c.memory[i].size * (pending_->memory[i].writable ? 2 : 1);
    if (!reserveBytes(bytes, kernelName)) {
      pending_->release();
      pending_.reset();
      return;
    }
    pending_->bytes = bytes;
    waitForInputs(launch);
    for (Pending::Memory& m : pending_->memory) readMemory(*pending_, m, &m.before);
    return;
  } catch (const CaptureError& e) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: " << e.what);
  } catch (const std::bad_alloc&) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: out of host memory");
  } catch (...) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: internal error");
  }
  if (pending_) pending_->release();
  pending_.reset();
}

EnqueueCapture::~EnqueueCapture() = default;

void EnqueueCapture::after(cl_int result) noexcept {
  if (!pending_) return;
  std::unique_ptr<Pending> p = std::move(pending_);
  try {
    if (result != CL_SUCCESS) {
      ISG_LOG_DEBUG("capture: the enqueue of " << p->c.kernelName << " failed (" << result
                                               << "); nothing recorded");
      p->release();
      return;
    }
    finishQueue(p->queue);
    for (Pending::Memory& m : p->memory)
      if (m.writable) readMemory(*p, m, &m.after);
    writeCase(*p);
    return;
  } catch (const CaptureError& e) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: " << e.what);
  } catch (const std::bad_alloc&) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: out of host memory");
  } catch (...) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: internal error");
  }
  p->release();
}

}  // namespace isg::capture
