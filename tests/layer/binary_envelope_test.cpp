// SPDX-License-Identifier: MIT
// The binary envelope's parser on its own (layer/formats/binary_envelope.h): what it writes it reads back
// exactly, and no truncation or single-byte corruption of an envelope is read past its end or
// accepted as anything but a self-consistent payload.
#include "formats/binary_envelope.h"

#include <gtest/gtest.h>

#include <string>

namespace {

isg::EnvelopePayload samplePayload() {
  isg::EnvelopePayload p;
  p.strategy = isg::Strategy::Khr;
  p.defaultSubGroupSize = 32;
  isg::KernelManifest k;
  k.name = "gemm_tile";
  k.subGroupSize = 16;
  k.requiredSubGroupSize = true;
  k.families = {"identity", "shuffle", "block_read"};
  k.scratchBytesPerItem = 8;
  k.numUserArgs = 4;
  k.hiddenArgs = {isg::HiddenArg{isg::HiddenArg::Kind::LocalScratch, 4},
                  isg::HiddenArg{isg::HiddenArg::Kind::ImageFacts, 5, 1}};
  k.reqdWorkGroupSize[0] = 64;
  k.reqdWorkGroupSize[1] = 2;
  k.reqdWorkGroupSize[2] = 1;
  k.wholeSubGroups = true;
  k.blockImageArgs = {1, 3};
  k.mixedImageArgs = {3};
  p.kernels = {k, k};
  p.kernels[1].name = "second";
  p.kernels[1].hiddenArgs.clear();
  p.contextFunctions = {isg::ContextFunction{"rot", {"shuffle", "broadcast"}, 16}};
  p.externalFunctions = {"helper", "other"};
  p.objectSource = "uint helper(uint);\nkernel void k(global uint* o) { o[0] = helper(1); }\n";
  p.objectHeaders = {isg::SourceFile{"h.h", "#define X 1\n"}};
  p.rewrittenSource = "kernel void gemm_tile() {}\n";
  p.rewrittenOptions = "-cl-std=CL2.0";
  p.appOptions = "-cl-std=CL2.0 -DSG=16";
  return p;
}

const std::string kDriverBinary = "\x7f" "ELF driver bytes";

std::string envelope() {
  return isg::envelopeHeader(isg::encodeEnvelopePayload(samplePayload()),
                             reinterpret_cast<const unsigned char*>(kDriverBinary.data()),
                             kDriverBinary.size()) +
         kDriverBinary;
}

isg::EnvelopeCheck open(const std::string& bytes, isg::EnvelopePayload* p, std::string* encoded,
                        std::string* driver) {
  const unsigned char* driverBinary = nullptr;
  size_t driverSize = 0;
  std::string why;
  auto check = isg::openEnvelope(reinterpret_cast<const unsigned char*>(bytes.data()),
                                 bytes.size(), p, encoded, &driverBinary, &driverSize, &why);
  if (check == isg::EnvelopeCheck::Invalid) {
    EXPECT_FALSE(why.empty());
  }
  if (check == isg::EnvelopeCheck::Enveloped)
    driver->assign(reinterpret_cast<const char*>(driverBinary), driverSize);
  return check;
}

TEST(BinaryEnvelope, ReadsBackWhatItWrote) {
  isg::EnvelopePayload p;
  std::string encoded, driver;
  ASSERT_EQ(open(envelope(), &p, &encoded, &driver), isg::EnvelopeCheck::Enveloped);
  EXPECT_EQ(driver, kDriverBinary);
  EXPECT_EQ(encoded, isg::encodeEnvelopePayload(samplePayload()));
  EXPECT_EQ(isg::encodeEnvelopePayload(p), encoded);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "gemm_tile");
  EXPECT_EQ(p.kernels[0].reqdWorkGroupSize[1], 2u);
  EXPECT_EQ(p.kernels[0].blockImageArgs, (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(p.kernels[0].mixedImageArgs, (std::vector<unsigned>{3}));
  ASSERT_EQ(p.kernels[0].hiddenArgs.size(), 2u);
  EXPECT_EQ(p.kernels[0].hiddenArgs[1].kind, isg::HiddenArg::Kind::ImageFacts);
  EXPECT_EQ(p.kernels[0].hiddenArgs[1].index, 5u);
  EXPECT_EQ(p.kernels[0].hiddenArgs[1].imageArg, 1u);
  EXPECT_EQ(p.strategy, isg::Strategy::Khr);
  EXPECT_EQ(p.appOptions, "-cl-std=CL2.0 -DSG=16");
  ASSERT_EQ(p.contextFunctions.size(), 1u);
  EXPECT_EQ(p.contextFunctions[0].name, "rot");
  EXPECT_EQ(p.contextFunctions[0].families, (std::vector<std::string>{"shuffle", "broadcast"}));
  EXPECT_EQ(p.contextFunctions[0].widestBytes, 16u);
  EXPECT_EQ(p.objectSource, samplePayload().objectSource);
  ASSERT_EQ(p.objectHeaders.size(), 1u);
  EXPECT_EQ(p.objectHeaders[0].text, "#define X 1\n");
}

TEST(BinaryEnvelope, DriverBinariesAreNotEnveloped) {
  isg::EnvelopePayload p;
  std::string encoded, driver;
  EXPECT_EQ(open(kDriverBinary, &p, &encoded, &driver), isg::EnvelopeCheck::NotEnveloped);
  EXPECT_EQ(open("", &p, &encoded, &driver), isg::EnvelopeCheck::NotEnveloped);
}

TEST(BinaryEnvelope, EveryTruncationIsRefused) {
  // Including cuts inside the driver's bytes, which a driver alone may crash on (PoCL 3.1 does).
  const std::string whole = envelope();
  for (size_t n = 8; n < whole.size(); ++n) {
    isg::EnvelopePayload p;
    std::string encoded, driver;
    EXPECT_EQ(open(whole.substr(0, n), &p, &encoded, &driver), isg::EnvelopeCheck::Invalid) << n;
  }
  isg::EnvelopePayload p;
  std::string encoded, driver;
  EXPECT_EQ(open(whole + "x", &p, &encoded, &driver), isg::EnvelopeCheck::Invalid) << "padded";
}

// Every flipped bit after the magic number is refused: the sizes must add up and the checksum
// covers the payload and the driver's bytes.
TEST(BinaryEnvelope, CorruptionIsRefused) {
  const std::string whole = envelope();
  for (size_t i = 8; i < whole.size(); ++i)
    for (unsigned char bit : {0x01, 0x10, 0x80}) {
      std::string bytes = whole;
      bytes[i] = static_cast<char>(bytes[i] ^ bit);
      isg::EnvelopePayload p;
      std::string encoded, driver;
      EXPECT_EQ(open(bytes, &p, &encoded, &driver), isg::EnvelopeCheck::Invalid) << i;
    }
}

// Another envelope version is refused with a reason that says to build from source again.
TEST(BinaryEnvelope, AnotherVersionIsRefusedWithTheReason) {
  std::string bytes = envelope();
  bytes[8] = static_cast<char>(bytes[8] + 1);
  const unsigned char* driverBinary = nullptr;
  size_t driverSize = 0;
  isg::EnvelopePayload p;
  std::string encoded, why;
  EXPECT_EQ(isg::openEnvelope(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                              &p, &encoded, &driverBinary, &driverSize, &why),
            isg::EnvelopeCheck::Invalid);
  EXPECT_NE(why.find("build the program from source again"), std::string::npos) << why;
}

}  // namespace
