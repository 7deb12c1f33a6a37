// SPDX-License-Identifier: MIT
// ISG_PACK_WORK_GROUPS=auto's line (layer/launch/packing_line.h), without OpenCL: a launch runs
// packed where its work-groups outnumber the CTAs the GPU holds at once as given, or where the
// packed copy gives every SM more than 8 warps; the shapes are the H200's (132 SMs x 32 CTAs)
// with OpenVINO's launches measured there (docs/openvino.md) and an SM that holds 16 CTAs.
#include <gtest/gtest.h>

#include "launch/packing_line.h"

namespace {

isg::DeviceProfile gpu(unsigned sms, unsigned ctasPerSm) {
  isg::DeviceProfile p;
  p.sms = sms;
  p.residentCtas = size_t(sms) * ctasPerSm;
  return p;
}

TEST(PackingLine, WorkGroupsOf16PackWhereTheirPackedWarpsFillTheSms) {
  const isg::DeviceProfile h200 = gpu(132, 32);
  // oneDNN's convolutions at batch 32: 3,136 work-groups gain packed, fewer than 4,224 CTAs.
  EXPECT_TRUE(isg::packsUnderAuto(3136, 16, h200));
  EXPECT_TRUE(isg::packsUnderAuto(12544, 16, h200));
  // The plugin's convolutions at batch 1: up to 1,568 work-groups, slower packed.
  EXPECT_FALSE(isg::packsUnderAuto(1568, 16, h200));
  EXPECT_FALSE(isg::packsUnderAuto(224, 16, h200));
  // The line: 8 packed warps an SM are 1,056 warps of two work-groups.
  EXPECT_FALSE(isg::packsUnderAuto(2112, 16, h200));
  EXPECT_TRUE(isg::packsUnderAuto(2113, 16, h200));
}

TEST(PackingLine, NarrowerWorkGroupsPackWhereCtasQueue) {
  const isg::DeviceProfile h200 = gpu(132, 32);
  // Four work-groups of 8 to a warp: the CTAs as given run out first.
  EXPECT_FALSE(isg::packsUnderAuto(4224, 8, h200));
  EXPECT_TRUE(isg::packsUnderAuto(4225, 8, h200));
  EXPECT_TRUE(isg::packsUnderAuto(8192, 8, h200));
  EXPECT_FALSE(isg::packsUnderAuto(4224, 1, h200));
  EXPECT_TRUE(isg::packsUnderAuto(4225, 1, h200));
}

TEST(PackingLine, AnSmOfFewerCtasPacksEarlier) {
  const isg::DeviceProfile small = gpu(84, 16);  // sm_86: 1,344 CTAs
  EXPECT_FALSE(isg::packsUnderAuto(1344, 16, small));
  EXPECT_TRUE(isg::packsUnderAuto(1345, 16, small));
  EXPECT_FALSE(isg::packsUnderAuto(13, 16, small));
}

TEST(PackingLine, ADeviceThatDoesNotSayItsSmsPacksEveryLaunch) {
  // No CL_DEVICE_MAX_COMPUTE_UNITS: nothing to weigh against, as ISG_PACK_WORK_GROUPS=1.
  const isg::DeviceProfile unknown = gpu(0, 32);
  EXPECT_TRUE(isg::packsUnderAuto(1, 16, unknown));
  EXPECT_TRUE(isg::packsUnderAuto(18, 16, unknown));
}

}  // namespace
