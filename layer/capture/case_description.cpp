// SPDX-License-Identifier: MIT
// The description of one enqueue as a case (case_description.h).
#include "capture/case_description.h"

#include <unistd.h>

#include <cstring>
#include <ctime>

#include "capture/arg_snapshots.h"
#include "capture/capture_error.h"
#include "capture/layer_facts.h"
#include "core/driver_queries.h"
#include "core/layer_api.h"

namespace isg::capture {
namespace {

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

}  // namespace

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
  KernelArgs args = argumentsOf(kernel, device, p.c.kernelName, numArgs);
  for (cl_uint i = 0; i < numArgs; ++i) describeArgument(p, i, args.values[i], args.info[i]);
}

}  // namespace isg::capture
