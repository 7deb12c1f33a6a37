// SPDX-License-Identifier: MIT
// isg-replay's --options and --drop-option: a case's build options split into options (with
// their values), and options removed by name (docs/compare.md, "isg-replay").
#pragma once

#include <string>
#include <vector>

namespace isg::replay {

// The options of `text`, one per entry: "-D X" and "-I dir" (two words) stay one entry, as do
// "-DX=1" and "-cl-std=CL2.0"; double quotes group words.
std::vector<std::string> splitOptions(const std::string& text);

// `options` without every option `drop` names:
//   * an option written the same ("-cl-fast-relaxed-math", "-DX=1", "-D X=1" and "-DX=1" alike);
//   * "-DNAME" (no value) also removes NAME's definitions with a value ("-DNAME=2", "-D NAME=2");
//   * "-D" or "-I" alone removes every definition or include directory.
// *dropped (if given) receives the options removed.
std::string dropOption(const std::string& options, const std::string& drop,
                       std::vector<std::string>* dropped = nullptr);

}  // namespace isg::replay
