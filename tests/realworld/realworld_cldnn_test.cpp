// SPDX-License-Identifier: MIT
// OpenVINO/clDNN style: kernels/fully_connected_simd.cl built with the -D soup that plugin
// passes, a fully-connected layer (block reads, shuffles through macros in helpers, block write)
// followed by a row normalization (reductions, scan, broadcast) on its output.
//
// Tolerances (float kernels against a double host reference):
//  * fully connected: |got - ref| <= 1e-4 * (1 + sum_i |x_i * w_i| + |bias|). The worst-case
//    float rounding of a 96-term dot product is about 96 * 2^-23 ~ 1.2e-5 of that sum; a wrong
//    lane or element shows up as an error of order 0.1.
//  * normalization: the kernel uses native_rsqrt, whose precision is implementation-defined, so
//    |got - ref| <= 1e-3 * max(1, |ref|); the mean within 1e-5 * (1 + mean |x|).
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "realworld_util.h"

namespace {

constexpr unsigned kBatch = 3, kIn = 96, kOut = 64;
constexpr float kSlope = 0.1f;

struct Case {
  unsigned simd;
};

// gtest names the case in CTest's list; the default would print the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << "SIMD" << c.simd; }

class ClDnnFullyConnected : public ::testing::TestWithParam<Case> {};

std::string options(unsigned simd, const std::string& id) {
  std::string o = "-cl-mad-enable -DKERNEL_ID=" + id + " -DSIMD=" + std::to_string(simd) +
                  " -DINPUT0_TYPE=float -DFILTER_TYPE=float -DOUTPUT_TYPE=float"
                  " -DACCUMULATOR_TYPE=float -DIN_FEATURES=" +
                  std::to_string(kIn) + " -DOUT_FEATURES=" + std::to_string(kOut) +
                  " -DBATCH=" + std::to_string(kBatch) +
                  " -DBIAS_TERM=1 -DACTIVATION_RELU=1"
                  " -DACTIVATION_SLOPE=0.1f";
  return o;
}

TEST_P(ClDnnFullyConnected, MatchesHostReference) {
  ISG_REQUIRE_ENV();
  const unsigned simd = GetParam().simd;
  const std::string id = "fc_simd" + std::to_string(simd) + "_17";

  std::string log;
  isgrw::Program prog;
  prog.program =
      isgtest::buildProgram(isgrw::readKernel("fully_connected_simd.cl"), options(simd, id), &log);
  ASSERT_NE(prog.program, nullptr) << "build failed:\n" << log;
  cl_kernel fc = prog.kernel("fully_connected_gpu_fb_oi_simd_" + id);
  cl_kernel mvn = prog.kernel("mvn_gpu_ref_across_features_" + id);
  ASSERT_TRUE(fc && mvn);

  const std::vector<float> x = isgrw::randomFloats(kBatch * kIn, -1.f, 1.f, 11 + simd);
  const std::vector<float> w = isgrw::randomFloats(kOut * kIn, -0.5f, 0.5f, 23 + simd);
  const std::vector<float> bias = isgrw::randomFloats(kOut, -0.25f, 0.25f, 37 + simd);
  // The plugin reorders weights to os_i_osv<SIMD> before the first inference.
  std::vector<float> wr(w.size());
  for (unsigned o = 0; o < kOut; ++o)
    for (unsigned i = 0; i < kIn; ++i)
      wr[(o / simd) * kIn * simd + i * simd + o % simd] = w[o * kIn + i];

  isgrw::Buffer in(x), weights(wr), biases(bias), out(kBatch * kOut), norm(kBatch * kOut),
      stats(2 * kBatch);
  isgrw::setArg(fc, 0, in.mem);
  isgrw::setArg(fc, 1, out.mem);
  isgrw::setArg(fc, 2, weights.mem);
  isgrw::setArg(fc, 3, biases.mem);
  // Two sub-groups per work-group, so sub-group ids other than 0 are exercised too.
  isgrw::run2d(fc, kOut, kBatch, 2 * simd, 1);
  const std::vector<float> y = out.read();

  unsigned bad = 0;
  for (unsigned b = 0; b < kBatch; ++b) {
    for (unsigned o = 0; o < kOut; ++o) {
      double acc = bias[o], mag = std::fabs(bias[o]);
      for (unsigned i = 0; i < kIn; ++i) {
        acc += double(x[b * kIn + i]) * w[o * kIn + i];
        mag += std::fabs(double(x[b * kIn + i]) * w[o * kIn + i]);
      }
      const double ref = acc >= 0 ? acc : acc * kSlope;
      const double got = y[b * kOut + o];
      if (std::fabs(got - ref) > 1e-4 * (1 + mag) && bad++ < 8)
        ADD_FAILURE() << "fc b=" << b << " o=" << o << ": got " << got << ", want " << ref;
    }
  }
  EXPECT_EQ(bad, 0u) << "fully-connected outputs off";

  isgrw::setArg(mvn, 0, out.mem);
  isgrw::setArg(mvn, 1, norm.mem);
  isgrw::setArg(mvn, 2, stats.mem);
  isgrw::run2d(mvn, simd, kBatch, simd, 1);
  const std::vector<float> z = norm.read(), st = stats.read();

  bad = 0;
  for (unsigned b = 0; b < kBatch; ++b) {
    double mean = 0, meanAbs = 0, var = 0;
    for (unsigned o = 0; o < kOut; ++o) {
      mean += y[b * kOut + o];
      meanAbs += std::fabs(y[b * kOut + o]);
    }
    mean /= kOut;
    meanAbs /= kOut;
    for (unsigned o = 0; o < kOut; ++o) var += (y[b * kOut + o] - mean) * (y[b * kOut + o] - mean);
    var /= kOut;
    const double inv = 1 / std::sqrt(var + 1e-5);
    EXPECT_NEAR(st[2 * b], mean, 1e-5 * (1 + meanAbs)) << "mean (reduce) of row " << b;
    EXPECT_NEAR(st[2 * b + 1], mean, 1e-5 * (1 + meanAbs))
        << "mean (scan + broadcast) of row " << b;
    for (unsigned o = 0; o < kOut; ++o) {
      const double ref = (y[b * kOut + o] - mean) * inv;
      const double got = z[b * kOut + o];
      if (std::fabs(got - ref) > 1e-3 * std::max(1.0, std::fabs(ref)) && bad++ < 8)
        ADD_FAILURE() << "mvn b=" << b << " o=" << o << ": got " << got << ", want " << ref;
    }
  }
  EXPECT_EQ(bad, 0u) << "normalized outputs off";
}

INSTANTIATE_TEST_SUITE_P(RealWorld, ClDnnFullyConnected, ::testing::Values(Case{8}, Case{16}),
                         [](const auto& info) { return "simd" + std::to_string(info.param.simd); });

}  // namespace
