// SPDX-License-Identifier: MIT
// CLBlast style: kernels/xgemm_shuffle.cl tuned through -D options, with the Intel sub-group
// shuffle path on (USE_SUBGROUP_SHUFFLING=1, SUBGROUP_SIZE from -D) and, as a control, off.
//
// Tolerance (float kernel against a double host reference): |got - ref| <=
// 1e-4 * (1 + |alpha| * sum_k |a_k * b_k| + |beta * c|). The worst-case float rounding of the
// 64-term dot product is about 64 * 2^-23 ~ 8e-6 of that sum; a wrong lane, column or k shows up
// as an error of order 0.1.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "realworld_util.h"

namespace {

constexpr int kM = 64, kN = 48, kK = 64;
constexpr float kAlpha = 1.5f, kBeta = -0.5f;

struct Tuning {
  const char* name;
  int shuffling, subGroupSize, mwg, nwg, mdimc, ndimc, vwn;
};

// gtest names the case in CTest's list; the default would print the struct's bytes.
void PrintTo(const Tuning& t, std::ostream* os) { *os << t.name; }

class Xgemm : public ::testing::TestWithParam<Tuning> {};

TEST_P(Xgemm, MatchesHostReference) {
  ISG_REQUIRE_ENV();
  const Tuning& t = GetParam();
  std::string options = "-DPRECISION=32 -DMWG=" + std::to_string(t.mwg) +
                        " -DNWG=" + std::to_string(t.nwg) + " -DMDIMC=" + std::to_string(t.mdimc) +
                        " -DNDIMC=" + std::to_string(t.ndimc) + " -DVWN=" + std::to_string(t.vwn) +
                        " -DUSE_SUBGROUP_SHUFFLING=" + std::to_string(t.shuffling);
  if (t.shuffling)
    options += " -DSUBGROUP_SHUFFLING_INTEL=1 -DSUBGROUP_SIZE=" + std::to_string(t.subGroupSize);

  std::string log;
  isgrw::Program prog;
  prog.program = isgtest::buildProgram(isgrw::readKernel("xgemm_shuffle.cl"), options, &log);
  ASSERT_NE(prog.program, nullptr) << "build failed with " << options << ":\n" << log;
  cl_kernel k = prog.kernel("Xgemm");
  ASSERT_NE(k, nullptr);

  const std::vector<float> a = isgrw::randomFloats(kK * kM, -1.f, 1.f, 101);
  const std::vector<float> b = isgrw::randomFloats(kK * kN, -1.f, 1.f, 202);
  const std::vector<float> c0 = isgrw::randomFloats(kM * kN, -1.f, 1.f, 303);
  isgrw::Buffer ab(a), bb(b), cb(c0);
  isgrw::setArg(k, 0, kM);
  isgrw::setArg(k, 1, kN);
  isgrw::setArg(k, 2, kK);
  isgrw::setArg(k, 3, kAlpha);
  isgrw::setArg(k, 4, kBeta);
  isgrw::setArg(k, 5, ab.mem);
  isgrw::setArg(k, 6, bb.mem);
  isgrw::setArg(k, 7, cb.mem);
  // One thread per MWI x NWI tile of C, as CLBlast launches it.
  const int mwi = t.mwg / t.mdimc, nwi = t.nwg / t.ndimc;
  isgrw::run2d(k, kM / mwi, kN / nwi, t.mdimc, t.ndimc);
  const std::vector<float> c = cb.read();

  unsigned bad = 0;
  for (int n = 0; n < kN; ++n) {
    for (int m = 0; m < kM; ++m) {
      double dot = 0, mag = 0;
      for (int kk = 0; kk < kK; ++kk) {
        dot += double(a[kk * kM + m]) * b[kk * kN + n];
        mag += std::fabs(double(a[kk * kM + m]) * b[kk * kN + n]);
      }
      const double ref = kAlpha * dot + kBeta * double(c0[n * kM + m]);
      const double tol = 1e-4 * (1 + std::fabs(kAlpha) * mag + std::fabs(kBeta * c0[n * kM + m]));
      const double got = c[n * kM + m];
      if (std::fabs(got - ref) > tol && bad++ < 8)
        ADD_FAILURE() << "C(" << m << "," << n << "): got " << got << ", want " << ref;
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << kM * kN << " elements of C are off (" << options << ")";
}

INSTANTIATE_TEST_SUITE_P(RealWorld, Xgemm,
                         ::testing::Values(Tuning{"shuffle_sg8", 1, 8, 16, 8, 8, 4, 1},
                                           Tuning{"shuffle_sg16_vwn2", 1, 16, 32, 16, 16, 4, 2},
                                           Tuning{"shuffle_sg8_two_subgroups_vwn2", 1, 8, 32, 8, 16,
                                                  2, 2},
                                           Tuning{"no_shuffle", 0, 8, 16, 8, 8, 4, 1}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
