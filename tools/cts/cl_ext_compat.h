/* SPDX-License-Identifier: MIT
 *
 * Force-included (-include) into every C++ file of the OpenCL-CTS build by
 * tools/cts/build.sh, so that a current CTS builds against Debian 12's
 * opencl-headers (3.0~2023.02.06).  The CTS harness (errorHelpers.cpp,
 * imageHelpers.{h,cpp}, kernelHelpers.cpp, testHarness.cpp) names image
 * channel types of three extensions added to CL/cl_ext.h after that release;
 * they are the only symbols missing.  The values are Khronos' registered
 * enums, copied from OpenCL-Headers' CL/cl_ext.h.  test_subgroups never
 * creates images of these types: the harness only prints and filters them.
 * Each is defined only when the headers in use lack it, so newer headers
 * (build.sh --cl-headers) make this file a no-op.
 */
#ifndef ISG_CTS_CL_EXT_COMPAT_H
#define ISG_CTS_CL_EXT_COMPAT_H

#include <CL/cl_ext.h>

/* cl_ext_image_raw10_raw12 */
#ifndef CL_UNSIGNED_INT_RAW10_EXT
#define CL_UNSIGNED_INT_RAW10_EXT 0x10E3
#endif
#ifndef CL_UNSIGNED_INT_RAW12_EXT
#define CL_UNSIGNED_INT_RAW12_EXT 0x10E4
#endif

/* cl_ext_image_unorm_int_2_101010 */
#ifndef CL_UNORM_INT_2_101010_EXT
#define CL_UNORM_INT_2_101010_EXT 0x10E5
#endif

/* cl_ext_image_unsigned_10x6_12x4_14x2 */
#ifndef CL_UNSIGNED_INT10X6_EXT
#define CL_UNSIGNED_INT10X6_EXT 0x10E6
#endif
#ifndef CL_UNSIGNED_INT12X4_EXT
#define CL_UNSIGNED_INT12X4_EXT 0x10E7
#endif
#ifndef CL_UNSIGNED_INT14X2_EXT
#define CL_UNSIGNED_INT14X2_EXT 0x10E8
#endif
#ifndef CL_UNORM_INT10X6_EXT
#define CL_UNORM_INT10X6_EXT 0x10E1
#endif
#ifndef CL_UNORM_INT12X4_EXT
#define CL_UNORM_INT12X4_EXT 0x10E9
#endif
#ifndef CL_UNORM_INT14X2_EXT
#define CL_UNORM_INT14X2_EXT 0x10EA
#endif

#endif
