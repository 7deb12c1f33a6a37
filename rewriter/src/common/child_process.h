// SPDX-License-Identifier: MIT
// Work that may end its process on bad input, run in a child process instead (the SPIR-V
// translator of module/, NVIDIA's back end of ptx/).
#pragma once

#include <functional>
#include <string>

namespace isg::detail {

// Runs `work` in a child forked for it and hands back what it wrote to *out (true) or its error
// (false, *why): for code that may end its process on bad input (the translator's assertions,
// LLVM's fatal errors), which inside the application would end the application. A child that
// dies, or takes over 120 s, is a failure whose *why names `what` and quotes its stderr.
bool runInChild(const std::string& what, const std::function<bool(std::string*)>& work,
                std::string* out, std::string* why);

}  // namespace isg::detail
