// SPDX-License-Identifier: MIT
// The build lock (build_lock.h).
#include "build_lock.h"

#include <condition_variable>
#include <mutex>
#include <unordered_set>

namespace isg {
namespace {

// The application programs being built (or compiled) through the layer right now.
class BuildsInProgress {
 public:
  bool begin(cl_program program) {
    std::lock_guard<std::mutex> lock(mutex_);
    return programs_.insert(program).second;
  }
  void beginAfterOthers(cl_program program) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return programs_.count(program) == 0; });
    programs_.insert(program);
  }
  void end(cl_program program) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      programs_.erase(program);
    }
    done_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::unordered_set<cl_program> programs_;
};

BuildsInProgress& buildsInProgress() {
  static auto* builds = new BuildsInProgress;  // never destroyed, like the registries
  return *builds;
}

}  // namespace

BuildClaim::BuildClaim(cl_program program, Mode mode) : program_(program) {
  if (mode == Mode::Wait) buildsInProgress().beginAfterOthers(program);
  claimed_ = mode == Mode::Wait || buildsInProgress().begin(program);
}

BuildClaim::~BuildClaim() {
  if (claimed_) buildsInProgress().end(program_);
}

}  // namespace isg
