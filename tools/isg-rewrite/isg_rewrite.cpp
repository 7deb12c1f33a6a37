// SPDX-License-Identifier: MIT
// isg-rewrite: runs the rewriter outside OpenCL, to see what a driver would receive.
//   isg-rewrite --strategy local|nvidia-ptx|khr [--sub-group-size N] [--native-size N] [--fp16] [--fp64]
//               [--nv-sm NN] [--driver-options FILE] [--manifest] [--header NAME=PATH]...
//               [--device-version NNN] [--device-extensions "A B"] [--device-features "A B"]
//               [build options...] file.cl
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "isg/rewriter.h"

namespace {

// --help prints to stdout and succeeds; a wrong command line gets the same text on stderr.
int usage(std::ostream& out = std::cerr, int status = 2) {
  out << "usage: isg-rewrite --strategy local|nvidia-ptx|khr [--sub-group-size N]\n"
               "                   [--native-size N] [--fp16] [--fp64] [--no-images] [--nv-sm NN]\n"
               "                   [--driver-options FILE] [--manifest]\n"
               "                   [--module-output bitcode|spirv|ptx] [--spirv-bridge PATH]\n"
               "       isg-rewrite --strategy S [--fp16] [--fp64] --declarations\n"
               "                   [--header NAME=PATH]... [build options...] file.cl\n"
               "Prints the source the driver would compile (or the manifest as JSON); exits 1\n"
               "with the build log when the program cannot be rewritten. --driver-options\n"
               "writes the build options the driver would get to FILE; --nv-sm sets the\n"
               "NVIDIA compute capability (e.g. 90) the nvidia-ptx library targets.\n"
               "Sizes and the default S are the strategy's, as the layer sets them;\n"
               "--native-size is the khr device's native sub-group size (default 32) and\n"
               "--sub-group-size the default S, as ISG_SUB_GROUP_SIZE sets it.\n"
               "--device-version (e.g. 300), --device-extensions and --device-features (space\n"
               "separated) say what the driver predefines, as the layer reads it off a device.\n"
               "--no-images: a device without CL_DEVICE_IMAGE_SUPPORT (no __IMAGE_SUPPORT__, no\n"
               "cl_intel_media_block_io).\n"
               "A SPIR-V module as input goes through the SPIR-V front end: the output is the\n"
               "module the driver would get, LLVM bitcode for cl_khr_spir drivers (default) or\n"
               "SPIR-V (--module-output spirv) or PTX for NVIDIA's driver (--module-output ptx,\n"
               "for --nv-sm); --spirv-bridge names libIntelSubgroupsSpirv.so\n"
               "(default: the installed one, or beside the program). OpenCL C source with\n"
               "--module-output ptx goes through the layer's own front end for NVIDIA\n"
               "(ISG_NVIDIA_FRONTEND=layer) and prints its PTX. --version prints the version.\n"
               "--declarations prints overloadable declarations of every builtin of the table\n"
               "(for compiling Intel code with clang-15).\n";
  return status;
}

// The rewriter names the main file <source>, as the layer's build logs do for a program's
// source; here it is the user's file.
std::string namingFile(std::string log, const std::string& file) {
  const std::string placeholder = "<source>";
  for (std::size_t at = 0; (at = log.find(placeholder, at)) != std::string::npos; at += file.size())
    log.replace(at, placeholder.size(), file);
  return log;
}

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// Build options are one string for the driver; keep multi-word arguments together.
std::string quoteOption(const std::string& a) {
  if (a.find_first_of(" \t\"'\\") == std::string::npos) return a;
  std::string q = "\"";
  for (char c : a) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  isg::RewriteInput in;
  isg::Strategy strategy = isg::Strategy::Local;
  unsigned nativeSize = 32, defaultSize = 0;
  bool manifest = false, haveStrategy = false, images = true, declarations = false;
  std::string file, optionsFile, bridge;
  isg::RewriteResult::Form moduleOutput = isg::RewriteResult::Form::Bitcode;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--strategy") {
      if (!value(&v) || !isg::parseStrategy(v, &strategy)) return usage();
      haveStrategy = true;
    } else if (a == "--sub-group-size") {
      if (!value(&v)) return usage();
      defaultSize = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--native-size") {
      if (!value(&v)) return usage();
      nativeSize = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--fp16") {
      in.traits.fp16 = true;
    } else if (a == "--fp64") {
      in.traits.fp64 = true;
    } else if (a == "--no-images") {
      images = false;
    } else if (a == "--nv-sm") {
      if (!value(&v)) return usage();
      in.traits.nvidiaComputeCapability = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--device-version") {
      if (!value(&v)) return usage();
      in.traits.deviceOpenclVersion = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    } else if (a == "--device-extensions" || a == "--device-features") {
      if (!value(&v)) return usage();
      std::istringstream names(v);
      auto& list = a == "--device-extensions" ? in.traits.deviceExtensions : in.traits.openclCFeatures;
      for (std::string n; names >> n;) list.push_back(n);
    } else if (a == "--driver-options") {
      if (!value(&optionsFile)) return usage();
    } else if (a == "--module-output") {
      if (!value(&v) || (v != "bitcode" && v != "spirv" && v != "ptx")) return usage();
      moduleOutput = v == "spirv" ? isg::RewriteResult::Form::Spirv
                     : v == "ptx" ? isg::RewriteResult::Form::Ptx
                                  : isg::RewriteResult::Form::Bitcode;
    } else if (a == "--spirv-bridge") {
      if (!value(&bridge)) return usage();
    } else if (a == "--declarations") {
      declarations = true;
    } else if (a == "--manifest") {
      manifest = true;
    } else if (a == "--header") {
      std::size_t eq;
      if (!value(&v) || (eq = v.find('=')) == std::string::npos) return usage();
      isg::SourceFile h{v.substr(0, eq), {}};
      if (!readFile(v.substr(eq + 1), &h.text)) {
        std::cerr << "isg-rewrite: cannot read " << v.substr(eq + 1) << "\n";
        return 2;
      }
      in.headers.push_back(std::move(h));
    } else if (a == "--help" || a == "-h") {
      return usage(std::cout, 0);
    } else if (a == "--version") {
      std::cout << "isg-rewrite " ISG_VERSION "\n";
      return 0;
    } else if (i == argc - 1) {
      file = a;
    } else {
      in.options += (in.options.empty() ? "" : " ") + quoteOption(a);
    }
  }
  if (declarations && haveStrategy) {
    isg::applyStrategyDefaults(strategy, nativeSize, &in.traits);
    in.traits.images = images;
    std::cout << isg::builtinDeclarations(in.traits);
    return 0;
  }
  if (!haveStrategy || file.empty()) return usage();
  if (!readFile(file, &in.source)) {
    std::cerr << "isg-rewrite: cannot read " << file << "\n";
    return 2;
  }
  isg::applyStrategyDefaults(strategy, nativeSize, &in.traits);
  in.traits.images = images;
  if (defaultSize) {
    const auto& sizes = in.traits.supportedSubGroupSizes;
    if (std::find(sizes.begin(), sizes.end(), defaultSize) == sizes.end()) {
      std::cerr << "isg-rewrite: sub-group size " << defaultSize << " is not one strategy "
                << isg::strategyName(strategy) << " supports\n";
      return 2;
    }
    in.traits.defaultSubGroupSize = defaultSize;
  }

  // A SPIR-V module (by its magic number) goes through the SPIR-V front end.
  const bool module = in.source.size() >= 4 && (in.source.compare(0, 4, "\x03\x02\x23\x07") == 0 ||
                                                in.source.compare(0, 4, "\x07\x23\x02\x03") == 0);
  isg::RewriteResult r;
  if (module) {
    isg::ModuleInput m;
    m.spirv = in.source;
    m.options = in.options;
    m.traits = in.traits;
    m.output = moduleOutput;
    m.spirvVersion = isg::kSpirvReadMax;
    m.bridgePath = bridge;
    r = isg::rewriteModule(m);
  } else if (moduleOutput == isg::RewriteResult::Form::Ptx) {
    r = isg::compileForNvidia(in);  // the layer's OpenCL C front end for NVIDIA
  } else {
    r = isg::rewriteProgram(in);
  }
  if (!optionsFile.empty()) {
    std::ofstream o(optionsFile);
    o << (r.status == isg::RewriteResult::Status::Rewritten ? r.options : in.options) << "\n";
  }
  if (manifest) {
    std::cout << isg::manifestToJson(r);
  } else if (r.status == isg::RewriteResult::Status::Rewritten) {
    if (r.form == isg::RewriteResult::Form::Ptx) std::cout << r.binary.c_str();  // without its NUL
    else std::cout << (module ? r.binary : r.source);
  } else if (r.status == isg::RewriteResult::Status::PassThrough) {
    std::cout << in.source;
  }
  // Errors, and for a program that builds its warnings and notes.
  std::cerr << namingFile(r.log, file);
  if (r.status == isg::RewriteResult::Status::Error) return 1;
  return 0;
}
