// SPDX-License-Identifier: MIT
// Binaries of programs the layer rewrote carry what the layer knows about them
// (binary_envelope.h), so that clCreateProgramWithBinary gives back a program the layer serves.
#pragma once

#include <CL/cl.h>

#include "programs/program_records.h"

namespace isg {

// CL_PROGRAM_BINARY_SIZES and CL_PROGRAM_BINARIES of a program with a record: the driver's
// binaries of record.driverProgram(), each in an envelope.
cl_int envelopedBinaryInfo(const ProgramRecord& record, cl_program_info param,
                            size_t param_value_size, void* param_value,
                            size_t* param_value_size_ret);

}  // namespace isg
