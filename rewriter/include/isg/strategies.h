// SPDX-License-Identifier: MIT
// isg/strategies.def seen from C++: the layer, the rewriter, isg-rewrite and the tests take every
// per-strategy fact from here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "isg/strategies.def"

namespace isg {

enum class Strategy {
#define ISG_STRATEGY_ENUM(e, ...) e,
  ISG_STRATEGIES(ISG_STRATEGY_ENUM)
#undef ISG_STRATEGY_ENUM
};

struct StrategyFacts {
  Strategy strategy;
  const char* name;
  const char* folder;  // "" for none
  bool scratch;        // kernels get the hidden local scratch argument
  unsigned minSlot;
  unsigned defaultSubGroupSize;  // 0: the native size
  unsigned minSubGroupSize, maxSubGroupSize;  // max 0: up to max(64, native size)
  bool launchSubGroupSize;  // its library takes an S known only at launch
  bool activeSet;           // its library knows the members a call in divergent flow has
};

inline const std::vector<StrategyFacts>& strategies() {
  static const std::vector<StrategyFacts> rows = {
#define ISG_STRATEGY_ROW(e, name_, folder_, scratch_, minSlot_, defaultS_, minS_, maxS_, launchS_, \
                         activeSet_)                                                               \
  {Strategy::e, name_, folder_, scratch_ != 0, minSlot_,                                           \
   defaultS_,   minS_, maxS_,   launchS_ != 0, activeSet_ != 0},
      ISG_STRATEGIES(ISG_STRATEGY_ROW)
#undef ISG_STRATEGY_ROW
  };
  return rows;
}

inline const StrategyFacts& factsOf(Strategy s) { return strategies()[static_cast<std::size_t>(s)]; }

// What the library a program gets is made of: the strategy's folder, and a test overlay's.
struct LibraryFacts {
  std::vector<std::string> folders;  // after builtins-cl/common/, in order
  bool scratch = false;
  unsigned minSlot = 0;
};

inline LibraryFacts libraryFacts(Strategy s, bool khrTestDouble) {
  const StrategyFacts& f = factsOf(s);
  LibraryFacts l;
  if (*f.folder) l.folders.push_back(f.folder);
  l.scratch = f.scratch;
  l.minSlot = f.minSlot;
  if (khrTestDouble) {
#define ISG_STRATEGY_OVERLAY_ROW(e, name_, base_, folder_, scratch_, minSlot_) \
  if (s == Strategy::base_) {                                                   \
    l.folders.push_back(folder_);                                               \
    l.scratch = scratch_ != 0;                                                  \
    l.minSlot = minSlot_;                                                       \
  }
    ISG_STRATEGY_OVERLAYS(ISG_STRATEGY_OVERLAY_ROW)
#undef ISG_STRATEGY_OVERLAY_ROW
  }
  return l;
}

// Bytes of the hidden scratch of one work-group of `items` work-items at sub-group size S with
// slots of `slot` bytes: two halves (builtins-cl/local/05-context.cl double-buffers every
// exchange), each one slot per work-item of the work-group rounded up to whole sub-groups.
inline std::size_t scratchBytes(std::size_t items, unsigned S, unsigned slot) {
  const std::size_t rounded = S ? (items + S - 1) / S * S : items;
  return 2 * rounded * (slot ? slot : 1);
}

}  // namespace isg
