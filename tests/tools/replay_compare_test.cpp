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

#include "batch.h"
#include "build_options.h"
#include "cli.h"
#include "compare.h"
#include "report.h"

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

// ---- the default tolerance against a host model (issue 50.3) ----------------------------------

// Sums of `terms` values computed in three orders (forward, backward, pairwise), as two drivers
// or two vectorisations compute one reduction; `signs` mixes signs, so that results cancel.
struct Sums {
  std::vector<float> forward, backward, pairwise;
};
float pairwiseSum(const float* v, size_t n) {
  if (n == 1) return v[0];
  return pairwiseSum(v, n / 2) + pairwiseSum(v + n / 2, n - n / 2);
}
Sums reassociatedSums(size_t outputs, size_t terms, bool signs) {
  std::uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;  // [0, 1)
  };
  Sums s;
  std::vector<float> v(terms);
  for (size_t o = 0; o < outputs; ++o) {
    for (float& x : v) x = (signs ? next() - 0.5f : next()) * (1.0f + 4.0f * next());
    float f = 0, b = 0;
    for (size_t i = 0; i < terms; ++i) f += v[i];
    for (size_t i = terms; i-- > 0;) b += v[i];
    s.forward.push_back(f);
    s.backward.push_back(b);
    s.pairwise.push_back(pairwiseSum(v.data(), terms));
  }
  return s;
}

Comparison underSetting(const std::vector<float>& captured, const std::vector<float>& replayed,
                        const isg::replay::ToleranceSetting& setting) {
  const std::vector<unsigned char> c = bytesOf(captured), r = bytesOf(replayed);
  const Tolerance t = isg::replay::toleranceFor(setting, Elem::F32, c.data(), c.size());
  return compare(c.data(), r.data(), c.size(), Elem::F32, t);
}

TEST(ReplayTolerance, DefaultAcceptsSumsInAnotherOrderAndExactDoesNot) {
  using isg::replay::ToleranceSetting;
  ToleranceSetting exact;
  exact.mode = ToleranceSetting::Mode::Exact;
  for (size_t terms : {16u, 256u, 4096u}) {
    for (bool signs : {false, true}) {
      const Sums s = reassociatedSums(256, terms, signs);
      for (const auto* other : {&s.backward, &s.pairwise}) {
        const Comparison d = underSetting(s.forward, *other, {});
        EXPECT_EQ(d.mismatches, 0u) << terms << " terms, signs " << signs << ": " << d.first[0];
        const Comparison e = underSetting(s.forward, *other, exact);
        EXPECT_GT(e.mismatches, 0u) << terms << " terms: the orders agree bit for bit";
      }
    }
  }
}

TEST(ReplayTolerance, DefaultStillFindsRealDifferences) {
  const Sums s = reassociatedSums(256, 256, true);
  std::vector<float> wrong = s.backward;
  wrong[17] *= 1.001f;                       // 1e-3 relative: a wrong result, not an order
  wrong[200] = -wrong[200];                  // a sign
  const Comparison c = underSetting(s.forward, wrong, {});
  EXPECT_EQ(c.mismatches, 2u);
  ASSERT_FALSE(c.first.empty());
  EXPECT_EQ(c.first[0].rfind("[17] captured", 0), 0u) << c.first[0];
}

TEST(ReplayTolerance, BoundIsTheDocumentedOneAndIntegersStayExact) {
  const std::vector<float> captured = {1.0f, -8.0f, 0.5f};
  const std::vector<unsigned char> c = bytesOf(captured);
  const Tolerance t = isg::replay::toleranceFor({}, Elem::F32, c.data(), c.size());
  const isg::replay::DefaultBound b = isg::replay::defaultBound(Elem::F32);
  EXPECT_EQ(t.ulp, b.ulp);
  EXPECT_EQ(t.rtol, b.rtol);
  EXPECT_DOUBLE_EQ(t.atol, b.floor * 8.0);  // the floor scales with the largest |output|
  EXPECT_EQ(isg::replay::describe(t), "ulp <= 4 or |diff| <= 8e-05 + 1e-05*|captured|");
  const Tolerance i = isg::replay::toleranceFor({}, Elem::I32, c.data(), c.size());
  EXPECT_EQ(i.ulp, 0u);
  EXPECT_EQ(i.atol, 0.0);
  EXPECT_NE(isg::replay::describe(isg::replay::ToleranceSetting{}).find(
                "float ulp <= 4 or |diff| <= 1e-05*|captured| + 1e-05*max|captured|"),
            std::string::npos)
      << isg::replay::describe(isg::replay::ToleranceSetting{});
}

// ---- build options ------------------------------------------------------------------------

TEST(ReplayOptions, DropOptionRemovesAnOptionWithItsValue) {
  using isg::replay::dropOption;
  const std::string o = "-cl-std=CL2.0 -D A=1 -DB -DA=2 -I inc -cl-mad-enable -DAB=3";
  EXPECT_EQ(dropOption(o, "-cl-mad-enable"), "-cl-std=CL2.0 -D A=1 -DB -DA=2 -I inc -DAB=3");
  EXPECT_EQ(dropOption(o, "-DA"), "-cl-std=CL2.0 -DB -I inc -cl-mad-enable -DAB=3");
  EXPECT_EQ(dropOption(o, "-D A=1"), "-cl-std=CL2.0 -DB -DA=2 -I inc -cl-mad-enable -DAB=3");
  EXPECT_EQ(dropOption(o, "-D"), "-cl-std=CL2.0 -I inc -cl-mad-enable");
  EXPECT_EQ(dropOption(o, "-I"), "-cl-std=CL2.0 -D A=1 -DB -DA=2 -cl-mad-enable -DAB=3");
  std::vector<std::string> dropped;
  EXPECT_EQ(dropOption(o, "-cl-std=CL3.0", &dropped), o);  // nothing of that spelling
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(isg::replay::splitOptions("-I \"a b\" -D X"),
            (std::vector<std::string>{"-I \"a b\"", "-D X"}));
}

// ---- the command line ---------------------------------------------------------------------

TEST(ReplayCommandLine, ChecksEveryArgument) {
  using isg::replay::Options;
  using isg::replay::parseCommandLine;
  using isg::replay::UsageError;
  auto error = [](std::vector<std::string> args) -> std::string {
    Options o;
    try {
      parseCommandLine(args, &o);
    } catch (const UsageError& e) {
      return e.what;
    }
    return "(accepted)";
  };
  EXPECT_EQ(error({"d", "--repeat", "0"}), "--repeat: '0' is not a whole number of at least 1");
  EXPECT_EQ(error({"d", "--repeat", "-2"}), "--repeat: '-2' is not a whole number of at least 1");
  EXPECT_EQ(error({"d", "--atol", "nan"}), "--atol: 'nan' is not a finite number of 0 or more");
  EXPECT_EQ(error({"d", "--rtol", "1e999"}), "--rtol: '1e999' is not a finite number of 0 or more");
  EXPECT_EQ(error({"d", "--frobnicate"}), "unknown option '--frobnicate' (isg-replay --help lists them)");
  EXPECT_EQ(error({"d", "--rtol", "0.1", "--exact"}), "--exact and --rtol contradict each other");
  Options o;
  ASSERT_EQ(parseCommandLine({"a", "b", "--ulp", "2", "--drop-option", "-DX", "--drop-option",
                              "-cl-mad-enable", "--options", "-DY", "--report", "r.json"},
                             &o),
            isg::replay::Action::Run);
  EXPECT_EQ(o.dirs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.tolerance.mode, isg::replay::ToleranceSetting::Mode::Given);
  EXPECT_EQ(o.tolerance.given.ulp, 2u);
  EXPECT_EQ(o.tolerance.given.rtol, 0.0);
  EXPECT_EQ(o.dropOptions.size(), 2u);
  EXPECT_TRUE(o.replaceOptions);
  EXPECT_EQ(isg::replay::reportFormat(o.reportPath, o.reportFormat), "json");
  Options d;
  parseCommandLine({"a"}, &d);
  EXPECT_EQ(d.tolerance.mode, isg::replay::ToleranceSetting::Mode::Default);
}

// ---- the table and the reports ------------------------------------------------------------

TEST(ReplayBatch, TableCountsEachKernelsResultsAndTheWorstDecides) {
  using isg::replay::CaseResult;
  using isg::replay::Verdict;
  auto result = [](const char* kernel, Verdict v, const char* detail = "") {
    CaseResult r;
    r.kernel = kernel;
    r.dir = std::string("cases/") + kernel;
    r.verdict = v;
    r.detail = detail;
    return r;
  };
  std::vector<CaseResult> results = {result("a", Verdict::Identical),
                                     result("b", Verdict::WithinTolerance),
                                     result("a", Verdict::Identical)};
  EXPECT_EQ(isg::replay::worstExitStatus(results), 0);
  results.push_back(result("c", Verdict::Mismatch, "1 of 1 outputs differ"));
  EXPECT_EQ(isg::replay::worstExitStatus(results), 1);
  results.push_back(result("b", Verdict::NotRun, "build failed (CL_BUILD_PROGRAM_FAILURE): x"));
  EXPECT_EQ(isg::replay::worstExitStatus(results), 2);
  const auto rows = isg::replay::tabulate(results);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, "a");
  EXPECT_EQ(rows[0].identical, 2u);
  EXPECT_EQ(rows[1].withinTolerance, 1u);
  EXPECT_EQ(rows[1].notRun, 1u);
  EXPECT_EQ(rows[1].notRunWhy, "build failed (CL_BUILD_PROGRAM_FAILURE): x");
  EXPECT_EQ(rows[2].mismatched, 1u);
  const isg::replay::Options o;
  const std::string md = isg::replay::markdownReport(o, results);
  EXPECT_NE(md.find("| b | 2 | 0 | 1 | 0 | 1 | build failed (CL_BUILD_PROGRAM_FAILURE): x |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("Exit status 2"), std::string::npos) << md;
  const std::string json = isg::replay::jsonReport(o, results);
  EXPECT_NE(json.find("\"exit_status\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"kernel\": \"c\", \"cases\": 1, \"identical\": 0, \"within_tolerance\": 0, "
                      "\"mismatched\": 1"),
            std::string::npos) << json;
}

}  // namespace
