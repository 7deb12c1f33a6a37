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

constexpr std::size_t kWarpSize = 32;

// The warps the packed copy runs `groups` work-groups of `items` work-items each in (fewer than
// 32, dividing 32): 32 / items to a warp, the last one partly.
inline std::size_t packedWarps(std::size_t groups, std::size_t items) {
  const std::size_t perWarp = kWarpSize / items;
  return (groups + perWarp - 1) / perWarp;
}

// Whether such a launch runs packed under auto on the device of `profile`.
inline bool packsUnderAuto(std::size_t groups, std::size_t items, const DeviceProfile& profile) {
  const std::size_t sms = profile.sms;
  return groups > sms * profile.ctasPerSm || packedWarps(groups, items) > sms * kPackedWarpsPerSm;
}

}  // namespace isg
