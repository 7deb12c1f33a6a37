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
#include <vector>

#include <spirv-tools/libspirv.hpp>

#include "bridge.h"
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
  static const spv_target_env envs[] = {SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1,
                                        SPV_ENV_UNIVERSAL_1_2, SPV_ENV_UNIVERSAL_1_3,
                                        SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
                                        SPV_ENV_UNIVERSAL_1_6};
  if ((words[1] >> 16) != 1 || minor >= sizeof envs / sizeof envs[0]) {
    *why = "SPIR-V version word " + std::to_string(words[1]) + " is not 1.0 to 1.6";
    return false;
  }
  const unsigned newest = (kSpirvReadMax >> 8) & 0xff;
  if (minor > newest) {
    *why = "SPIR-V 1." + std::to_string(minor) + ": the layer reads SPIR-V 1.0 to 1." + std::to_string(newest);
    return false;
  }
  spvtools::SpirvTools tools(envs[minor]);
  std::string messages;
  tools.SetMessageConsumer([&messages](spv_message_level_t, const char*, const spv_position_t& at,
                                       const char* message) {
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
  const std::string path = requested.empty() ? layerFile("libIntelSubgroupsSpirv.so", &searched) : requested;
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

// The reply is [ok byte][64-bit length][bytes]: whole once that many bytes are there.
bool wholeReply(const std::string& reply) {
  std::uint64_t size = 0;
  if (reply.size() < 1 + sizeof size) return false;
  std::memcpy(&size, reply.data() + 1, sizeof size);
  return reply.size() - 1 - sizeof size >= size;
}

// Reads what the child writes to `fd` until the reply is whole or the pipe closes, at most
// `seconds` long. (A whole reply ends the wait even if another process forked meanwhile by the
// application holds the pipe open.)
bool readAll(int fd, std::string* out, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, int(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out->append(buffer, std::size_t(n));
    if (wholeReply(*out)) return true;
  }
}

}  // namespace

bool runInChild(const std::string& what, const std::function<bool(std::string*)>& work, std::string* out,
                std::string* why) {
  // The child's diagnostics (an assertion's text, LLVM's fatal error) come back through a pipe
  // of their own, to the build log instead of the application's stderr; its writes never block
  // (a flood is cut).
  int errs[2];
  if (pipe2(errs, O_CLOEXEC | O_NONBLOCK) != 0) {
    *why = "cannot create a pipe for " + what + ": " + std::strerror(errno);
    return false;
  }
  auto readErrors = [&errs] {
    std::string text;
    char buffer[4096];
    ssize_t n;
    while (text.size() < 4096 && (n = read(errs[0], buffer, sizeof buffer)) > 0) text.append(buffer, std::size_t(n));
    close(errs[0]);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  };
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    close(errs[0]);
    close(errs[1]);
    *why = "cannot create a pipe for " + what + ": " + std::strerror(errno);
    return false;
  }
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    close(errs[0]);
    close(errs[1]);
    *why = "cannot start " + what + ": " + std::strerror(errno);
    return false;
  }
  if (child == 0) {
    close(fds[0]);
    dup2(errs[1], 2);
    std::string payload;
    const char ok = work(&payload) ? 1 : 0;
    auto writeAll = [&](const char* data, std::size_t size) {
      while (size > 0) {
        const ssize_t n = write(fds[1], data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(3);
        data += n;
        size -= std::size_t(n);
      }
    };
    const std::uint64_t size = payload.size();
    writeAll(&ok, 1);
    writeAll(reinterpret_cast<const char*>(&size), sizeof size);
    if (size) writeAll(payload.data(), size);
    _exit(0);
  }
  close(fds[1]);
  close(errs[1]);
  std::string reply;
  const bool complete = readAll(fds[0], &reply, 120);
  close(fds[0]);
  if (!complete) kill(child, SIGKILL);
  // An application that ignores SIGCHLD, or reaps every child itself, leaves no status to
  // collect: the reply's own length says whether the child finished it.
  int status = 0;
  pid_t reaped;
  while ((reaped = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  std::uint64_t size = 0;
  if (reply.size() >= 1 + sizeof size) std::memcpy(&size, reply.data() + 1, sizeof size);
  const bool whole = complete && wholeReply(reply) && reply.size() == 1 + sizeof size + size;
  const bool clean = reaped != child || (WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string said = readErrors();
  if (!whole || !clean) {
    *why = !complete ? what + " did not finish within 120 s"
           : reaped == child && WIFSIGNALED(status)
               ? what + " failed on this module (signal " + std::to_string(WTERMSIG(status)) +
                     ", e.g. a failed assertion)"
           : reaped == child && WIFEXITED(status)
               ? what + " rejected this module (it ended with status " +
                     std::to_string(WEXITSTATUS(status)) + ")"
               : what + " ended without an answer";
    if (!said.empty()) *why += ": " + said;
    return false;
  }
  const std::string payload = reply.substr(1 + sizeof size);
  if (reply[0] == 1) {
    *out = payload;
    return true;
  }
  *why = payload.empty() ? what + " failed" : payload;
  return false;
}

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
  return runInChild("the SPIR-V translator",
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
  return callBridge(bridgePath, bitcode, why, [&](Bridge& b, isg_spirv_bytes* r, isg_spirv_bytes* e) {
    return b.toBitcode(module.data(), module.size(), r, e);
  });
}

bool bitcodeToSpirv(const std::string& bridgePath, const std::string& bitcode, unsigned maxVersion,
                    std::string* module, std::string* why) {
  return callBridge(bridgePath, module, why, [&](Bridge& b, isg_spirv_bytes* r, isg_spirv_bytes* e) {
    return b.toSpirv(bitcode.data(), bitcode.size(), maxVersion, r, e);
  });
}

}  // namespace isg::detail
