// SPDX-License-Identifier: MIT
// isg-replay's verdict, called as a library (tools/isg-replay/compare.h) rather than through a
// captured case on a device: which element an argument's type implies, how raw bytes decode, and
// when a replayed element matches the captured one. The capture/replay tests (tests/compare) see
// these rules only through whole kernels; here each rule has a case that fails when it changes.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compare.h"

namespace {

using isg::replay::compare;
using isg::replay::Comparison;
using isg::replay::Elem;
using isg::replay::elemFromChannelType;
using isg::replay::elemFromTypeName;
using isg::replay::load;
using isg::replay::Tolerance;
using isg::replay::ulpDistance;

template <class T>
std::vector<unsigned char> bytesOf(const std::vector<T>& values) {
  std::vector<unsigned char> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <class T>
std::uint64_t bitsOf(T value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}

Comparison compareValues(const std::vector<unsigned char>& captured,
                         const std::vector<unsigned char>& replayed, Elem e,
                         const Tolerance& t = {}) {
  EXPECT_EQ(captured.size(), replayed.size());
  return compare(captured.data(), replayed.data(), captured.size(), e, t);
}

TEST(ReplayElements, TypeNamesGiveTheScalarElement) {
  EXPECT_EQ(elemFromTypeName("const float4*"), Elem::F32);
  EXPECT_EQ(elemFromTypeName("__global uint*"), Elem::U32);
  EXPECT_EQ(elemFromTypeName("unsigned int*"), Elem::U32);
  EXPECT_EQ(elemFromTypeName("unsigned*"), Elem::U32);
  EXPECT_EQ(elemFromTypeName("unsigned char*"), Elem::U8);
  EXPECT_EQ(elemFromTypeName("unsigned long*"), Elem::U64);
  EXPECT_EQ(elemFromTypeName("signed char*"), Elem::I8);
  EXPECT_EQ(elemFromTypeName("__constant short16*"), Elem::I16);
  EXPECT_EQ(elemFromTypeName("ushort3*"), Elem::U16);
  EXPECT_EQ(elemFromTypeName("int16*"), Elem::I32);  // int x 16, not a 16-bit int
  EXPECT_EQ(elemFromTypeName("long8*"), Elem::I64);
  EXPECT_EQ(elemFromTypeName("half8*"), Elem::F16);
  EXPECT_EQ(elemFromTypeName("volatile double2*"), Elem::F64);
  EXPECT_EQ(elemFromTypeName("size_t*"), Elem::U64);
  EXPECT_EQ(elemFromTypeName("bool*"), Elem::U8);
  // Anything the name does not make plain is compared bytewise.
  EXPECT_EQ(elemFromTypeName("struct particle*"), Elem::Bytes);
  EXPECT_EQ(elemFromTypeName("my_float_t*"), Elem::Bytes);
  EXPECT_EQ(elemFromTypeName(""), Elem::Bytes);
}

TEST(ReplayElements, ImageChannelTypesGiveTheStoredElement) {
  EXPECT_EQ(elemFromChannelType(CL_FLOAT), Elem::F32);
  EXPECT_EQ(elemFromChannelType(CL_HALF_FLOAT), Elem::F16);
  EXPECT_EQ(elemFromChannelType(CL_UNORM_INT8), Elem::U8);
  EXPECT_EQ(elemFromChannelType(CL_SNORM_INT8), Elem::I8);
  EXPECT_EQ(elemFromChannelType(CL_SNORM_INT16), Elem::I16);
  EXPECT_EQ(elemFromChannelType(CL_SIGNED_INT32), Elem::I32);
  EXPECT_EQ(elemFromChannelType(CL_UNORM_SHORT_565), Elem::U16);
  EXPECT_EQ(elemFromChannelType(CL_UNORM_INT_101010), Elem::U32);
  EXPECT_EQ(elemFromChannelType(CL_UNORM_INT24), Elem::Bytes);
}

TEST(ReplayElements, HalvesDecodeNormalsSubnormalsInfinitiesAndNan) {
  auto half = [](std::uint16_t bits) {
    unsigned char raw[2];
    std::memcpy(raw, &bits, 2);
    return load(raw, Elem::F16);
  };
  EXPECT_EQ(half(0x3c00).value, 1.0);
  EXPECT_EQ(half(0x3c00).bits, 0x3c00u);
  EXPECT_EQ(half(0xc000).value, -2.0);
  EXPECT_EQ(half(0x3555).value, 0.333251953125);
  EXPECT_EQ(half(0x7bff).value, 65504.0);
  EXPECT_EQ(half(0x0001).value, std::ldexp(1.0, -24));
  EXPECT_EQ(half(0x83ff).value, -std::ldexp(1023.0, -24));
  EXPECT_EQ(half(0x7c00).value, std::numeric_limits<double>::infinity());
  EXPECT_EQ(half(0xfc00).value, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(half(0x7e00).value));
  EXPECT_TRUE(std::isnan(half(0xfc01).value));
}

TEST(ReplayElements, LoadReadsOnlyItsOwnBytesAndSignExtendsSignedValues) {
  const unsigned char raw[8] = {0xff, 0x80, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  EXPECT_EQ(load(raw, Elem::U8).bits, 0xffu);
  EXPECT_EQ(load(raw, Elem::U8).value, 255.0);
  EXPECT_EQ(load(raw, Elem::I8).value, -1.0);
  EXPECT_EQ(load(raw, Elem::U16).bits, 0x80ffu);
  EXPECT_EQ(load(raw, Elem::U16).value, 33023.0);
  EXPECT_EQ(load(raw, Elem::I16).value, -32513.0);
  EXPECT_EQ(load(raw, Elem::U32).bits, 0xbbaa80ffu);
  EXPECT_EQ(load(raw, Elem::I32).value, static_cast<double>(std::int32_t(0xbbaa80ffu)));
  EXPECT_EQ(load(raw, Elem::U64).bits, 0xffeeddccbbaa80ffu);
  EXPECT_EQ(load(raw, Elem::I64).value,
            static_cast<double>(static_cast<std::int64_t>(0xffeeddccbbaa80ffu)));
  EXPECT_EQ(load(raw, Elem::Bytes).bits, 0xffu);

  const std::vector<unsigned char> f = bytesOf(std::vector<float>{1.5f});
  EXPECT_EQ(load(f.data(), Elem::F32).value, 1.5);
  EXPECT_EQ(load(f.data(), Elem::F32).bits, 0x3fc00000u);
  const std::vector<unsigned char> d = bytesOf(std::vector<double>{-0.1});
  EXPECT_EQ(load(d.data(), Elem::F64).value, -0.1);
  EXPECT_EQ(load(d.data(), Elem::F64).bits, bitsOf(-0.1));
}

TEST(ReplayUlp, DistanceCountsRepresentableValuesAcrossZero) {
  EXPECT_EQ(ulpDistance(bitsOf(1.0f), bitsOf(std::nextafter(1.0f, 2.0f)), Elem::F32), 1u);
  EXPECT_EQ(ulpDistance(bitsOf(std::nextafter(1.0f, 2.0f)), bitsOf(1.0f), Elem::F32), 1u);
  EXPECT_EQ(ulpDistance(bitsOf(0.0f), bitsOf(-0.0f), Elem::F32), 0u);
  // The smallest subnormals either side of zero are two steps apart (through 0).
  EXPECT_EQ(ulpDistance(0x00000001, 0x80000001, Elem::F32), 2u);
  EXPECT_EQ(ulpDistance(bitsOf(-1.0f), bitsOf(1.0f), Elem::F32), 2u * 0x3f800000u);
  EXPECT_EQ(ulpDistance(0x3c00, 0x3c03, Elem::F16), 3u);
  EXPECT_EQ(ulpDistance(0x0001, 0x8001, Elem::F16), 2u);
  EXPECT_EQ(ulpDistance(bitsOf(1.0), bitsOf(std::nextafter(1.0, 2.0)), Elem::F64), 1u);
  EXPECT_EQ(ulpDistance(bitsOf(-2.0), bitsOf(2.0), Elem::F64), 2 * bitsOf(2.0));
}

TEST(ReplayCompare, IdenticalOutputsHaveNoMismatchAndNothingTolerated) {
  const auto v = bytesOf(std::vector<float>{1.0f, -2.5f, 0.0f});
  const Comparison c = compareValues(v, v, Elem::F32);
  EXPECT_EQ(c.elements, 3u);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.tolerated, 0u);
  EXPECT_TRUE(c.first.empty());
}

TEST(ReplayCompare, FloatsAreExactUnlessAnUlpToleranceIsGiven) {
  const float next = std::nextafter(1.0f, 2.0f);
  const auto captured = bytesOf(std::vector<float>{2.0f, 1.0f});
  const auto replayed = bytesOf(std::vector<float>{2.0f, next});

  Comparison exact = compareValues(captured, replayed, Elem::F32);
  EXPECT_EQ(exact.mismatches, 1u);
  EXPECT_EQ(exact.tolerated, 0u);
  EXPECT_EQ(exact.largestAt, 1u);
  EXPECT_EQ(exact.largestUlp, 1u);
  EXPECT_EQ(exact.largestError, static_cast<double>(next) - 1.0);
  ASSERT_EQ(exact.first.size(), 1u);
  EXPECT_EQ(exact.first[0],
            "[1] captured 1 (0x3f800000)  replayed 1.00000012 (0x3f800001)  (1 ulp)");

  Tolerance oneUlp;
  oneUlp.ulp = 1;
  Comparison within = compareValues(captured, replayed, Elem::F32, oneUlp);
  EXPECT_EQ(within.mismatches, 0u);
  EXPECT_EQ(within.tolerated, 1u);
  EXPECT_TRUE(within.first.empty());
  // What the report prints for a tolerated element.
  EXPECT_EQ(within.largestUlp, 1u);
  EXPECT_EQ(within.largestAt, 1u);
}

TEST(ReplayCompare, FloatsWithinAbsoluteOrRelativeToleranceOfTheCapturedValue) {
  Tolerance t;
  const auto two = bytesOf(std::vector<float>{2.0f});
  const auto one = bytesOf(std::vector<float>{1.0f});
  EXPECT_EQ(compareValues(two, one, Elem::F32, t).mismatches, 1u);

  t.atol = 1.0;  // |2 - 1| <= 1
  EXPECT_EQ(compareValues(two, one, Elem::F32, t).tolerated, 1u);
  t.atol = 0.5;
  EXPECT_EQ(compareValues(two, one, Elem::F32, t).mismatches, 1u);

  // rtol scales the captured value, not the replayed one: 0.5 * |2| covers the difference of
  // 1, 0.5 * |1| does not.
  t.atol = 0;
  t.rtol = 0.5;
  EXPECT_EQ(compareValues(two, one, Elem::F32, t).tolerated, 1u);
  EXPECT_EQ(compareValues(one, two, Elem::F32, t).mismatches, 1u);
  t.atol = 0.5;  // atol + rtol * |captured| = 0.5 + 0.5
  EXPECT_EQ(compareValues(one, two, Elem::F32, t).tolerated, 1u);
}

TEST(ReplayCompare, SignedZerosDifferInBitsButAreZeroUlpApart) {
  const Comparison c = compareValues(bytesOf(std::vector<float>{0.0f}),
                                     bytesOf(std::vector<float>{-0.0f}), Elem::F32);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.tolerated, 1u);
}

TEST(ReplayCompare, NanMatchesAnyNanButNoNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::uint32_t otherNanBits = 0x7fc00123;  // another payload
  float otherNan;
  std::memcpy(&otherNan, &otherNanBits, 4);

  const Comparison payloads = compareValues(bytesOf(std::vector<float>{nan}),
                                            bytesOf(std::vector<float>{otherNan}), Elem::F32);
  EXPECT_EQ(payloads.mismatches, 0u);
  EXPECT_EQ(payloads.tolerated, 0u);

  Tolerance loose;
  loose.ulp = 1000;
  loose.atol = 1e30;
  const Comparison number =
      compareValues(bytesOf(std::vector<float>{1.0f, nan}), bytesOf(std::vector<float>{1.0f, 1.0f}),
                    Elem::F32, loose);
  EXPECT_EQ(number.mismatches, 1u);
  EXPECT_EQ(number.tolerated, 0u);
  EXPECT_EQ(number.largestAt, 1u);
  EXPECT_TRUE(std::isinf(number.largestError));
  EXPECT_EQ(number.largestUlp, UINT64_MAX);
  ASSERT_EQ(number.first.size(), 1u);
  EXPECT_EQ(number.first[0].find("ulp"), std::string::npos) << number.first[0];

  const Comparison halves = compareValues({0x00, 0x7e}, {0x01, 0xfe}, Elem::F16);  // NaN, -NaN
  EXPECT_EQ(halves.mismatches, 0u);
  const Comparison doubles =
      compareValues(bytesOf(std::vector<double>{std::numeric_limits<double>::quiet_NaN()}),
                    bytesOf(std::vector<double>{0.0}), Elem::F64, loose);
  EXPECT_EQ(doubles.mismatches, 1u);
}

TEST(ReplayCompare, HalvesAndDoublesUseTheirOwnUlp) {
  Tolerance oneUlp;
  oneUlp.ulp = 1;
  // 0x3c00 = 1.0, 0x3c01 one half-ulp above, 0x3c02 two.
  EXPECT_EQ(compareValues({0x00, 0x3c}, {0x01, 0x3c}, Elem::F16, oneUlp).tolerated, 1u);
  const Comparison twoHalfUlp = compareValues({0x00, 0x3c}, {0x02, 0x3c}, Elem::F16, oneUlp);
  EXPECT_EQ(twoHalfUlp.mismatches, 1u);
  EXPECT_EQ(twoHalfUlp.largestUlp, 2u);
  ASSERT_EQ(twoHalfUlp.first.size(), 1u);
  EXPECT_EQ(twoHalfUlp.first[0], "[0] captured 1 (0x3c00)  replayed 1.00195312 (0x3c02)  (2 ulp)");

  const double next = std::nextafter(1.0, 2.0);
  const auto one = bytesOf(std::vector<double>{1.0});
  const auto above = bytesOf(std::vector<double>{next});
  const Comparison exact = compareValues(one, above, Elem::F64);
  EXPECT_EQ(exact.mismatches, 1u);
  ASSERT_EQ(exact.first.size(), 1u);
  EXPECT_EQ(exact.first[0],
            "[0] captured 1 (0x3ff0000000000000)  replayed 1.0000000000000002 "
            "(0x3ff0000000000001)  (1 ulp)");
  EXPECT_EQ(compareValues(one, above, Elem::F64, oneUlp).tolerated, 1u);
}

TEST(ReplayCompare, IntegersAreBitExactWhateverTheTolerance) {
  Tolerance loose;
  loose.ulp = 1000;
  loose.atol = 1000;
  loose.rtol = 1;
  const Comparison c =
      compareValues(bytesOf(std::vector<std::int32_t>{7, -1, 5}),
                    bytesOf(std::vector<std::int32_t>{7, -3, 6}), Elem::I32, loose);
  EXPECT_EQ(c.elements, 3u);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.tolerated, 0u);
  EXPECT_EQ(c.largestError, 2.0);
  EXPECT_EQ(c.largestUlp, 0u);
  EXPECT_EQ(c.largestAt, 1u);
  ASSERT_EQ(c.first.size(), 2u);
  EXPECT_EQ(c.first[0], "[1] captured -1  replayed -3");
  EXPECT_EQ(c.first[1], "[2] captured 5  replayed 6");

  const Comparison u = compareValues(bytesOf(std::vector<std::uint16_t>{65535}),
                                     bytesOf(std::vector<std::uint16_t>{0}), Elem::U16, loose);
  EXPECT_EQ(u.mismatches, 1u);
  EXPECT_EQ(u.largestError, 65535.0);
}

TEST(ReplayCompare, BytesAndTheTailOfAPartialElementCompareBytewise) {
  const Comparison bytes = compareValues({0x0a, 0x01}, {0x0b, 0x01}, Elem::Bytes);
  EXPECT_EQ(bytes.elements, 2u);
  ASSERT_EQ(bytes.mismatches, 1u);
  EXPECT_EQ(bytes.first[0], "[0] captured 0x0a  replayed 0x0b");

  // Six bytes of float: one element and a two-byte tail, indexed after the elements.
  std::vector<unsigned char> captured = bytesOf(std::vector<float>{1.0f});
  captured.push_back(0x10);
  captured.push_back(0x20);
  std::vector<unsigned char> replayed = captured;
  replayed[5] = 0x21;
  const Comparison tail = compareValues(captured, replayed, Elem::F32);
  EXPECT_EQ(tail.elements, 1u);
  EXPECT_EQ(tail.mismatches, 1u);
  EXPECT_EQ(tail.largestAt, 2u);
  ASSERT_EQ(tail.first.size(), 1u);
  EXPECT_EQ(tail.first[0], "[2] captured 32  replayed 33");
}

TEST(ReplayCompare, ReportsTheFirstEightMismatchesAndTheLargestError) {
  std::vector<std::int8_t> captured(12, 0), replayed(12, 1);
  replayed[9] = 100;
  const Comparison c = compareValues(bytesOf(captured), bytesOf(replayed), Elem::I8);
  EXPECT_EQ(c.mismatches, 12u);
  EXPECT_EQ(c.first.size(), 8u);
  EXPECT_EQ(c.first[7], "[7] captured 0  replayed 1");
  EXPECT_EQ(c.largestAt, 9u);
  EXPECT_EQ(c.largestError, 100.0);
}

}  // namespace
