// SPDX-License-Identifier: MIT
// Which enqueues become cases, and when capture stops (docs/compare.md, "Capture controls"):
// the kernel-name filter, each kernel's first N enqueues, the count and size caps. Shared by every
// thread that enqueues: counters are atomic, the per-kernel table has its own mutex, and each cap
// logs one warning the first time it stops a capture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace isg::capture {

// ISG_CAPTURE_KERNEL split at commas, each name trimmed of blanks; empty names dropped.
std::vector<std::string> kernelNames(const std::string& filter);
// The name passes ISG_CAPTURE_KERNEL (an empty filter passes every name).
bool nameSelected(const std::string& name);

// ISG_CAPTURE_PER_KERNEL: true while `name` has had fewer than N enqueues offered (counted per
// kernel name, among those the filters select); always true for N = 0.
bool withinPerKernel(const std::string& name);

// The count cap in force: ISG_CAPTURE_MAX, except that when ISG_CAPTURE_PER_KERNEL or
// ISG_CAPTURE_MAX_MB bounds the run and ISG_CAPTURE_MAX is not in the environment, 0 (none).
unsigned effectiveMaxCases();

// Takes one case slot of the count cap; false (and one warning per process) once they are spent.
bool reserveCase(const std::string& kernelName);
void releaseCase();

// Takes `bytes` of ISG_CAPTURE_MAX_MB; false when the case does not fit (the first time with a
// warning naming the control, later at debug level). A case that does not fit is skipped;
// smaller later ones may still be captured.
bool reserveBytes(std::uint64_t bytes, const std::string& kernelName);
void releaseBytes(std::uint64_t bytes);

}  // namespace isg::capture
