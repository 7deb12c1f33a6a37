// SPDX-License-Identifier: MIT
// ISG_PACK_WORK_GROUPS=auto's line (docs/design.md, "Packed work-groups"): which launches of a
// kernel with a packed copy run the copy.
#pragma once

#include <cstddef>

#include "devices/device_strategy.h"

namespace isg {

// As given, each work-group runs in a warp of its own, side by side; packed, a launch has 32 / W
// times fewer warps to hide their latency with, each doing the work of all its lanes. Packing
// gains where CTAs queue for the SMs, or where the packed copy still gives every SM enough warps
// to keep its four schedulers issuing; a launch of fewer waits on latency either way, and packed
// it would wait longer (docs/openvino.md, "Packed where warps fill the SMs").
constexpr std::size_t kPackedWarpsPerSm = 8;

// Whether a launch of `groups` whole work-groups of `items` work-items each (fewer than 32,
// dividing 32) runs packed under auto on the device of `profile`.
inline bool packsUnderAuto(std::size_t groups, std::size_t items, const DeviceProfile& profile) {
  const std::size_t perWarp = 32 / items;
  const std::size_t packedWarps = (groups + perWarp - 1) / perWarp;
  return groups > profile.residentCtas || packedWarps > std::size_t(profile.sms) * kPackedWarpsPerSm;
}

}  // namespace isg
