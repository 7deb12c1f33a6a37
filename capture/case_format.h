// SPDX-License-Identifier: MIT
// The on-disk format of a captured kernel run (docs/compare.md): a directory with case.json,
// the program source and one binary blob per memory content. The layer writes it and
// tools/isg-replay reads it; both use these structs, so the format has exactly one definition.
// It depends on the standard library only (no OpenCL calls), so the replay tool can link it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isg::capture {

// Bump on any change a reader of the previous version would misread; readers refuse newer
// versions instead of guessing.
// 2: programs from SPIR-V (`programForm`); version 1 cases are all "source".
constexpr int kFormatVersion = 2;
constexpr const char* kFormatName = "isg-kernel-case";
constexpr const char* kCaseFile = "case.json";

// A memory object the kernel saw: a whole buffer (sub-buffer arguments name their parent with
// an origin, so aliasing between them survives), or an image.
struct MemoryObject {
  unsigned id = 0;
  std::string kind;         // "buffer" | "image"
  std::uint64_t flags = 0;  // cl_mem_flags as the application created the object
  std::uint64_t size = 0;   // bytes of `before`/`after` (images: tightly packed rows)
  std::string before;       // blob file: contents before the kernel ran
  std::string after;        // blob file: contents after it finished; empty if not writable
  // Images only (OpenCL enum values).
  std::uint32_t imageType = 0;  // cl_mem_object_type
  std::uint32_t channelOrder = 0, channelDataType = 0;
  std::uint64_t width = 0, height = 0, depth = 0, arraySize = 0;
  std::uint64_t elementSize = 0;  // bytes per pixel
};

struct Argument {
  unsigned index = 0;
  // "scalar" | "buffer" | "null_buffer" | "local" | "image" | "sampler"
  std::string kind;
  // clGetKernelArgInfo as the driver answered at capture time; empty when it would not tell.
  std::string name, typeName;
  std::string addressQualifier;             // "global" | "constant" | "local" | "private"
  std::string accessQualifier;              // "none" | "read_only" | "write_only" | "read_write"
  std::vector<std::string> typeQualifiers;  // "const", "restrict", "volatile", "pipe"
  std::uint64_t size = 0;  // scalar/local: arg_size; buffer: bytes the argument covers
  std::string valueHex;    // scalar: arg_value bytes, in memory order
  unsigned memory = 0;     // buffer/image: MemoryObject::id
  bool subBuffer = false;  // buffer: a sub-buffer of `memory` at `origin`
  std::uint64_t origin = 0;
  bool writable = false;  // the kernel may write it: its `after` contents are compared
  // sampler (OpenCL enum values)
  bool normalizedCoords = false;
  std::uint32_t addressingMode = 0, filterMode = 0;
};

struct NdRange {
  unsigned workDim = 1;
  std::optional<std::vector<std::uint64_t>> globalOffset;  // nullopt: the app passed NULL
  std::vector<std::uint64_t> globalSize;
  std::optional<std::vector<std::uint64_t>> localSize;  // nullopt: the app passed NULL
};

struct Case {
  int formatVersion = kFormatVersion;
  std::string api;                 // "clEnqueueNDRangeKernel" | "clEnqueueTask"
  std::uint64_t enqueueIndex = 0;  // 1-based among the enqueues that passed the name filter
  std::uint64_t pid = 0;
  std::string capturedAt;  // UTC, ISO 8601
  // The device and driver the case ran on (clGetDeviceInfo / clGetPlatformInfo strings).
  std::map<std::string, std::string> device;
  // What the layer did with the program: "rewritten" | "pass-through" | "capture-only", and
  // the device's strategy ("" when the layer did not choose one).
  std::string layerMode, strategy;
  unsigned subGroupSize = 0;              // rewritten kernels: the size the layer gave them
  // The application's program, byte for byte: OpenCL C ("source", program.cl) or the module it
  // passed to clCreateProgramWithIL ("spirv", program.spv).
  std::string programForm = "source";
  std::string sourceFile = "program.cl";
  std::string buildOptions;               // as the application passed them
  std::string kernelName;
  NdRange ndrange;
  std::vector<MemoryObject> memory;
  std::vector<Argument> args;
  // Things the reader should know (e.g. "kernel argument info unavailable").
  std::vector<std::string> notes;
};

std::string toJson(const Case& c);
// Parses case.json. False with *error on malformed text, a foreign format or a newer version.
bool fromJson(const std::string& text, Case* out, std::string* error);

std::string toHex(const void* data, std::size_t size);
bool fromHex(const std::string& hex, std::vector<unsigned char>* out);

// A name as one part of a file name: letters, digits, '_', '-' and '.' kept, anything else
// '_', at most 64 characters (kernel names in case folders, header names in ISG_DUMP_DIR).
std::string fileSafe(const std::string& name);

bool readFile(const std::string& path, std::string* out);
bool writeFile(const std::string& path, const std::string& data);

}  // namespace isg::capture
