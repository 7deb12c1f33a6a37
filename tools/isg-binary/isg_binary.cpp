// SPDX-License-Identifier: MIT
// isg-binary FILE.cl OUT [OPTIONS...]: builds FILE.cl for the default device of the first
// platform, writes the program binary to OUT and the build log to stderr. Exit status 0 only
// when the build succeeded and a binary was written.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "build_log.h"

namespace {

int fail(const std::string& what, cl_int err) {
  std::cerr << "isg-binary: " << what << " failed (" << err << ")\n";
  return 1;
}

}  // namespace

constexpr const char* kUsage =
    "usage: isg-binary FILE.cl OUT [OPTIONS...] | --version | --help\n"
    "Builds FILE.cl with OPTIONS for the default device of the first platform, writes the\n"
    "program binary to OUT and the build log to stderr.\n";

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::cout << "isg-binary " ISG_VERSION "\n";
    return 0;
  }
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  // Build options start with one '-'; an argument with two is a mistyped option of this tool.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--", 0) == 0) {
      std::cerr << "isg-binary: unknown option '" << argv[i] << "' (isg-binary --help shows the usage)\n";
      return 2;
    }
  if (argc < 3) {
    std::cerr << "isg-binary: needs FILE.cl and OUT (isg-binary --help shows the usage)\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "isg-binary: cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  std::string options;
  for (int i = 3; i < argc; ++i) options += std::string(i > 3 ? " " : "") + argv[i];

  cl_platform_id platform = nullptr;
  cl_int err = clGetPlatformIDs(1, &platform, nullptr);
  if (err != CL_SUCCESS) return fail("clGetPlatformIDs", err);
  cl_device_id device = nullptr;
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr);
  if (err != CL_SUCCESS) return fail("clGetDeviceIDs", err);
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!context) return fail("clCreateContext", err);
  const char* strings[] = {source.c_str()};
  cl_program program = clCreateProgramWithSource(context, 1, strings, nullptr, &err);
  if (!program) return fail("clCreateProgramWithSource", err);
  cl_int built = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);

  std::cerr << isg::programBuildLog(program, device);
  if (built != CL_SUCCESS) return fail("clBuildProgram", built);

  size_t binarySize = 0;
  err = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof binarySize, &binarySize, nullptr);
  if (err != CL_SUCCESS || binarySize == 0) return fail("CL_PROGRAM_BINARY_SIZES", err);
  std::vector<unsigned char> binary(binarySize);
  unsigned char* binaries[] = {binary.data()};
  err = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, nullptr);
  if (err != CL_SUCCESS) return fail("CL_PROGRAM_BINARIES", err);
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(binary.data()), std::streamsize(binary.size()));
  clReleaseProgram(program);
  clReleaseContext(context);
  if (!out) {
    std::cerr << "isg-binary: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
