// SPDX-License-Identifier: MIT
// Intel-targeted programs launch at the device's largest work-group. On NVIDIA a rewritten
// kernel that needs many registers reports a smaller CL_KERNEL_WORK_GROUP_SIZE, and an enqueue
// at the device's maximum fails with CL_OUT_OF_RESOURCES. Before the first kernel of such a
// program is created, the layer builds the program again with a register cap
// (-cl-nv-maxrregcount) that fits the largest work-group every kernel can be launched at: the
// device's maximum, or the kernel's reqd_work_group_size.
#pragma once

#include "object_registry.h"

namespace isg {

// Once per build of `record`; a no-op off nvidia-ptx, for programs whose kernels already reach
// their largest work-group, and where the application set its own register limit.
void capRegistersForLargestWorkGroup(ProgramRecord& record);

}  // namespace isg
