// SPDX-License-Identifier: MIT
// What every doc generator shares: its Markdown tables' cells, and the command line that prints
// the generated text, writes it to a file, or checks that the committed file is exactly it (the
// CTest test that keeps docs/ true).
#pragma once

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace isg {

// A '|' inside a table cell would end the cell; escaped, it prints as itself.
inline std::string escapeCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// `table` names the source of truth and `target` the CMake target that regenerates the file,
// for the message that tells a developer how to fix a stale copy.
inline int runDocGenerator(int argc, char** argv, const std::string& text, const char* table,
                           const char* target) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode.empty()) {
    std::cout << text;
    return 0;
  }
  if (argc != 3 || (mode != "--output" && mode != "--check")) {
    std::cerr << "usage: " << argv[0] << " [--output FILE | --check FILE]\n";
    return 2;
  }
  if (mode == "--output") {
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out << text;
    return out ? 0 : 1;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream committed;
  committed << in.rdbuf();
  if (in && committed.str() == text) return 0;
  std::cerr << argv[2] << " is not what " << table << " generates; regenerate it with\n"
            << "  cmake --build <build> --target " << target << "\n";
  return 1;
}

}  // namespace isg
