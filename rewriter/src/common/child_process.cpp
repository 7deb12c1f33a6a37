// SPDX-License-Identifier: MIT
#include "common/child_process.h"

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
#include <string>

namespace isg::detail {
namespace {

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

bool runInChild(const std::string& what, const std::function<bool(std::string*)>& work,
                std::string* out, std::string* why) {
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
    while (text.size() < 4096 && (n = read(errs[0], buffer, sizeof buffer)) > 0)
      text.append(buffer, std::size_t(n));
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

}  // namespace isg::detail
