// SPDX-License-Identifier: MIT
// ISG_PACK_WORK_GROUPS=auto's line (layer/launch/packing_line.h), without OpenCL: a launch runs
// packed where its work-groups outnumber the CTAs the GPU holds at once as given, or where the
// packed copy gives every SM more than 8 warps; the shapes are the H200's (132 SMs x 32 CTAs)
// with OpenVINO's launches measured there (docs/openvino.md) and an SM that holds 16 CTAs.
#include <gtest/gtest.h>

#include <initializer_list>

#include "launch/packing_line.h"

namespace {

isg::DeviceProfile gpu(unsigned sms, unsigned ctasPerSm) {
  isg::DeviceProfile p;
  p.sms = sms;
  p.ctasPerSm = ctasPerSm;
  return p;
}

struct Launch {
  size_t groups, items;
  bool packed;
};

void expectLine(const isg::DeviceProfile& device, std::initializer_list<Launch> launches) {
  for (const Launch& l : launches)
    EXPECT_EQ(isg::packsUnderAuto(l.groups, l.items, device), l.packed)
        << l.groups << " work-groups of " << l.items << " on " << device.sms << " SMs";
}

TEST(PackingLine, WorkGroupsOf16PackWhereTheirPackedWarpsFillTheSms) {
  expectLine(gpu(132, 32), {
      // oneDNN's convolutions at batch 32: 3,136 work-groups gain packed, fewer than 4,224 CTAs.
      {3136, 16, true}, {12544, 16, true},
      // The plugin's convolutions at batch 1: up to 1,568 work-groups, slower packed.
      {1568, 16, false}, {224, 16, false},
      // The line: 8 packed warps an SM are 1,056 warps of two work-groups.
      {2112, 16, false}, {2113, 16, true}});
}

TEST(PackingLine, NarrowerWorkGroupsPackWhereCtasQueue) {
  // Four work-groups of 8 to a warp (32 of 1): the CTAs as given run out first.
  expectLine(gpu(132, 32), {{4224, 8, false}, {4225, 8, true}, {8192, 8, true}, {4224, 1, false}, {4225, 1, true}});
}

TEST(PackingLine, AnSmOfFewerCtasPacksEarlier) {
  expectLine(gpu(84, 16), {{1344, 16, false}, {1345, 16, true}, {13, 16, false}});  // sm_86: 1,344 CTAs
}

TEST(PackingLine, ADeviceThatDoesNotSayItsSmsPacksEveryLaunch) {
  // No CL_DEVICE_MAX_COMPUTE_UNITS: nothing to weigh against, as ISG_PACK_WORK_GROUPS=1.
  expectLine(gpu(0, 32), {{1, 16, true}, {18, 16, true}});
}

}  // namespace
