// SPDX-License-Identifier: MIT
// Starting a benchmark's variants as fresh processes: the ICD loader reads OPENCL_LAYERS once,
// at its first call, so "with the layer" and "without it" are two processes. Benchmarks that
// compare them (start-up, host cost per call) run the processes interleaved, round by round, so
// that the host's drift hits every variant alike.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace isgb {

// The value of environment variable `name`, which names `what` the benchmark starts its
// variants with; throws when it is unset or empty.
inline std::string requiredEnv(const char* name, const char* what) {
  const char* v = std::getenv(name);
  if (!v || !*v) throw std::runtime_error(std::string(name) + " names " + what);
  return v;
}

struct ProcessRun {
  double ms = 0;       // wall time from start to exit
  double peakMiB = 0;  // peak resident memory (wait4's ru_maxrss)
};

// Runs `argv` (argv[0] searched in PATH) with this process's environment, each of `set`
// replacing or adding a variable (an empty value removes it), stdout and stderr into `log`
// (default: discarded). Throws when it cannot start or does not exit with status 0.
inline ProcessRun runProcess(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& set,
                             const std::string& log = "/dev/null") {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : set) replaced |= entry.rfind(name + "=", 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : set)
    if (!value.empty()) env.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + args[0]);
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(args[0] + " failed" + (log == "/dev/null" ? "" : " (its output: " + log + ")"));
  ProcessRun r;
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.peakMiB = double(usage.ru_maxrss) / 1024.0;
  return r;
}

}  // namespace isgb
