// SPDX-License-Identifier: MIT
#include "module/spirv_bridge.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <spirv-tools/libspirv.hpp>
#include <vector>

#include "bridge.h"
#include "common/child_process.h"
#include "common/own_files.h"
#include "isg/rewriter.h"

namespace isg::detail {

bool validateSpirv(const std::string& module, std::string* why) {
  if (module.size() < 20 || module.size() % 4 != 0) {
    *why = "not a whole number of 32-bit words with a header";
    return false;
  }
  std::vector<std::uint32_t> words(module.size() / 4);
  std::memcpy(words.data(), module.data(), module.size());
  if (words[0] == 0x03022307u)  // the other byte order: the validator reads host order
    for (std::uint32_t& w : words) w = __builtin_bswap32(w);
  const std::uint32_t minor = (words[1] >> 8) & 0xff;
  static const spv_target_env envs[] = {
      SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2, SPV_ENV_UNIVERSAL_1_3,
      SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5, SPV_ENV_UNIVERSAL_1_6};
  if ((words[1] >> 16) != 1 || minor >= sizeof envs / sizeof envs[0]) {
    *why = "SPIR-V version word " + std::to_string(words[1]) + " is not 1.0 to 1.6";
    return false;
  }
  const unsigned newest = (kSpirvReadMax >> 8) & 0xff;
  if (minor > newest) {
    *why = "SPIR-V 1." + std::to_string(minor) + ": the layer reads SPIR-V 1.0 to 1." +
           std::to_string(newest);
    return false;
  }
  spvtools::SpirvTools tools(envs[minor]);
  std::string messages;
  tools.SetMessageConsumer(
      [&messages](spv_message_level_t, const char*, const spv_position_t& at, const char* message) {
        if (messages.size() > 4096) return;
        messages += "word " + std::to_string(at.index) + ": " + message + "\n";
      });
  if (tools.Validate(words)) return true;
  *why = messages.empty() ? "rejected by the SPIR-V validator" : messages;
  while (!why->empty() && why->back() == '\n') why->pop_back();
  return false;
}

namespace {

struct Bridge {
  bool loaded = false;
  std::string error;
  int (*toBitcode)(const void*, size_t, isg_spirv_bytes*, isg_spirv_bytes*) = nullptr;
  int (*toSpirv)(const void*, size_t, unsigned, isg_spirv_bytes*, isg_spirv_bytes*) = nullptr;
  void (*release)(isg_spirv_bytes*) = nullptr;
};

// Loaded once per path and never unloaded: a process has few link namespaces (glibc: 16).
// The translator is not known to be reentrant, so calls are serialised as well.
std::mutex& bridgeMutex() {
  static auto* m = new std::mutex;
  return *m;
}

Bridge& bridgeAt(const std::string& requested) {
  static auto* bridges = new std::map<std::string, Bridge>;
  std::string searched;
  const std::string path =
      requested.empty() ? layerFile("libIntelSubgroupsSpirv.so", &searched) : requested;
  Bridge& b = (*bridges)[path];
  if (b.loaded || !b.error.empty()) return b;
  if (path.empty()) {
    b.error = "the SPIR-V bridge libIntelSubgroupsSpirv.so is not installed (searched " + searched +
              "); the package intel-subgroups-layer-spirv holds it";
    return b;
  }
  // A namespace of its own: the bridge's libLLVM-15 is never the application's or the
  // driver's (PoCL has its own), and none of its symbols can bind to the layer's.
  void* h = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    b.error = "the SPIR-V bridge " + path + " cannot be loaded (" + (e ? e : "unknown error") +
              "); it needs SPIRV-LLVM-Translator 15 (Debian: libllvmspirvlib15)";
    return b;
  }
  auto abi = reinterpret_cast<int (*)()>(dlsym(h, "isg_spirv_abi"));
  b.toBitcode = reinterpret_cast<decltype(b.toBitcode)>(dlsym(h, "isg_spirv_to_bitcode"));
  b.toSpirv = reinterpret_cast<decltype(b.toSpirv)>(dlsym(h, "isg_bitcode_to_spirv"));
  b.release = reinterpret_cast<decltype(b.release)>(dlsym(h, "isg_spirv_free"));
  if (!abi || abi() != ISG_SPIRV_BRIDGE_ABI || !b.toBitcode || !b.toSpirv || !b.release) {
    b.error = "the SPIR-V bridge " + path + " is of another version than the layer";
    return b;
  }
  b.loaded = true;
  return b;
}

}  // namespace

namespace {

// SPIRV-LLVM-Translator 15 ends the process on some inputs (exit() with its error code on an
// unsupported module, abort() on failed assertions: Debian builds it with them), which inside
// the application would end the application: each translation runs in a child. Calls are
// serialised, so no other thread is inside the bridge's namespace (its own C library and
// allocator) when the child is forked.
template <class Call>
bool callBridge(const std::string& path, std::string* out, std::string* why, Call&& call) {
  std::lock_guard<std::mutex> lock(bridgeMutex());
  Bridge& b = bridgeAt(path);
  if (!b.loaded) {
    *why = b.error;
    return false;
  }
  return runInChild(
      "the SPIR-V translator",
      [&](std::string* payload) {
        isg_spirv_bytes result{nullptr, 0}, error{nullptr, 0};
        const bool ok = call(b, &result, &error) == 0;
        const isg_spirv_bytes& bytes = ok ? result : error;
        if (bytes.data) payload->assign(bytes.data, bytes.size);
        return ok;
      },
      out, why);
}

}  // namespace

bool bridgeLoads(const std::string& bridgePath, std::string* why) {
  std::lock_guard<std::mutex> lock(bridgeMutex());
  Bridge& b = bridgeAt(bridgePath);
  if (!b.loaded) *why = b.error;
  return b.loaded;
}

bool spirvToBitcode(const std::string& bridgePath, const std::string& module, std::string* bitcode,
                    std::string* why) {
  return callBridge(bridgePath, bitcode, why,
                    [&](Bridge& b, isg_spirv_bytes* r, isg_spirv_bytes* e) {
                      return b.toBitcode(module.data(), module.size(), r, e);
                    });
}

bool bitcodeToSpirv(const std::string& bridgePath, const std::string& bitcode, unsigned maxVersion,
                    std::string* module, std::string* why) {
  return callBridge(bridgePath, module, why,
                    [&](Bridge& b, isg_spirv_bytes* r, isg_spirv_bytes* e) {
                      return b.toSpirv(bitcode.data(), bitcode.size(), maxVersion, r, e);
                    });
}

}  // namespace isg::detail
