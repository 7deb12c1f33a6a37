// SPDX-License-Identifier: MIT
#include "programs/program_binaries.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "formats/binary_envelope.h"
#include "programs/program_records.h"
#include "programs/separate_compilation.h"

namespace isg {
namespace {

EnvelopePayload payloadOf(const ProgramRecord& record) {
  EnvelopePayload p;
  p.strategy = record.rewrite.strategy;
  p.defaultSubGroupSize = record.defaultSubGroupSize;
  p.kernels = record.rewrite.kernels;
  p.contextFunctions = record.rewrite.contextFunctions;
  p.externalFunctions = record.rewrite.externalFunctions;
  p.appOptions = record.appOptions;
  // An object that calls functions defined elsewhere may have to be compiled again by a link;
  // one of the layer's front end always is.
  p.frontEndObject = record.rewrite.form == RewriteResult::Form::Object;
  if (!p.externalFunctions.empty() || p.frontEndObject)
    if (auto compiled = compiledObjects().find(record.app)) {
      p.objectSource = compiled->source;
      if (p.objectSource.empty() && compiled->members.empty())
        programString(record.app, CL_PROGRAM_SOURCE, &p.objectSource);
      p.objectHeaders = compiled->headers;
      p.libraryMembers = compiled->members;
    }
  // Only where a build with a register cap may be needed: the source is as large as the rest.
  if (mayCapRegisters(record)) {
    p.rewrittenSource = record.rewrite.source;
    p.rewrittenOptions = record.rewrite.options;
  }
  return p;
}

std::shared_ptr<ProgramRecord> recordOf(cl_program app, EnvelopePayload p) {
  auto record = std::make_shared<ProgramRecord>();
  record->kind = ProgramRecord::Kind::FromBinary;
  record->app = app;
  record->defaultSubGroupSize = p.defaultSubGroupSize;
  record->appOptions = std::move(p.appOptions);
  RewriteResult& r = record->rewrite;
  r.status = RewriteResult::Status::Rewritten;
  r.strategy = p.strategy;
  r.kernels = std::move(p.kernels);
  r.contextFunctions = std::move(p.contextFunctions);
  r.externalFunctions = std::move(p.externalFunctions);
  r.source = std::move(p.rewrittenSource);
  r.options = std::move(p.rewrittenOptions);
  if (p.frontEndObject) r.form = RewriteResult::Form::Object;
  if (!p.objectSource.empty() || !p.libraryMembers.empty()) {
    auto compiled = std::make_shared<CompiledObject>();
    compiled->source = std::move(p.objectSource);
    compiled->options = record->appOptions;
    compiled->headers = std::move(p.objectHeaders);
    compiled->members = std::move(p.libraryMembers);
    compiledObjects().put(app, std::move(compiled));
  }
  return record;
}

}  // namespace

cl_int envelopedBinaryInfo(const ProgramRecord& record, cl_program_info param,
                           size_t param_value_size, void* param_value,
                           size_t* param_value_size_ret) {
  const cl_program target = record.driverProgram();
  std::vector<size_t> sizes;
  cl_int err =
      queryArray(ISG_QUERY_LAMBDA(clGetProgramInfo, target, CL_PROGRAM_BINARY_SIZES), &sizes);
  if (err != CL_SUCCESS) return err;
  const std::string payload = encodeEnvelopePayload(payloadOf(record));
  if (param == CL_PROGRAM_BINARY_SIZES) {
    // A device the driver has no binary for (0) still has none.
    for (size_t& size : sizes)
      if (size) size += envelopeHeaderSize(payload);
    return writeArray(param_value_size, param_value, param_value_size_ret, sizes);
  }
  const size_t bytes = sizes.size() * sizeof(unsigned char*);
  if (param_value && param_value_size < bytes) return CL_INVALID_VALUE;
  if (param_value_size_ret) *param_value_size_ret = bytes;
  if (!param_value) return CL_SUCCESS;
  // The application sized its buffers from the enveloped sizes; the driver writes into ours.
  auto* const out = static_cast<unsigned char**>(param_value);
  std::vector<std::vector<unsigned char>> driverBinaries(sizes.size());
  std::vector<unsigned char*> driverPointers(sizes.size(), nullptr);
  // The driver gets a buffer for every device: PoCL 3.1 writes through NULL entries.
  for (size_t i = 0; i < sizes.size(); ++i) {
    driverBinaries[i].resize(std::max<size_t>(sizes[i], 1));
    driverPointers[i] = driverBinaries[i].data();
  }
  err = next().clGetProgramInfo(target, CL_PROGRAM_BINARIES, bytes, driverPointers.data(), nullptr);
  if (err != CL_SUCCESS) return err;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!out[i] || !sizes[i]) continue;  // NULL entries are skipped, as the spec says
    const std::string header = envelopeHeader(payload, driverBinaries[i].data(), sizes[i]);
    std::memcpy(out[i], header.data(), header.size());
    std::memcpy(out[i] + header.size(), driverBinaries[i].data(), sizes[i]);
  }
  return CL_SUCCESS;
}

cl_program CL_API_CALL clCreateProgramWithBinary_layer(cl_context context, cl_uint num_devices,
                                                       const cl_device_id* device_list,
                                                       const size_t* lengths,
                                                       const unsigned char** binaries,
                                                       cl_int* binary_status, cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithBinary", errcode_ret, [&]() -> cl_program {
    ISG_REQUIRE_NEXT_CREATE(clCreateProgramWithBinary, errcode_ret);
    if (const cl_int wrong = wrongContextOrDevices(context, num_devices, device_list)) {
      if (errcode_ret) *errcode_ret = wrong;
      return nullptr;
    }
    auto create = [&](const size_t* driverLengths, const unsigned char** driverBinaries) {
      return newAppProgram(next().clCreateProgramWithBinary(context, num_devices, device_list,
                                                            driverLengths, driverBinaries,
                                                            binary_status, errcode_ret));
    };
    // Malformed arguments are the driver's to report.
    if (num_devices == 0 || !device_list || !lengths || !binaries) return create(lengths, binaries);

    std::vector<size_t> driverLengths(lengths, lengths + num_devices);
    std::vector<const unsigned char*> driverBinaries(binaries, binaries + num_devices);
    std::vector<cl_int> status(num_devices, CL_SUCCESS);
    std::vector<bool> plain(num_devices, false);
    std::string agreed;  // the first envelope's payload: every device's must be the same
    EnvelopePayload payload;
    bool enveloped = false, invalid = false;
    for (cl_uint i = 0; i < num_devices; ++i) {
      if (!binaries[i] || !lengths[i]) continue;  // the driver's CL_INVALID_VALUE
      EnvelopePayload p;
      std::string encoded, why;
      switch (openEnvelope(binaries[i], lengths[i], &p, &encoded, &driverBinaries[i],
                           &driverLengths[i], &why)) {
        case EnvelopeCheck::NotEnveloped:
          plain[i] = true;
          break;
        case EnvelopeCheck::Invalid:
          ISG_LOG_WARNING("clCreateProgramWithBinary: the binary for device " << i << ": " << why);
          status[i] = CL_INVALID_BINARY;
          invalid = true;
          break;
        case EnvelopeCheck::Enveloped:
          if (!enveloped) {
            enveloped = true;
            agreed = std::move(encoded);
            payload = std::move(p);
          } else if (encoded != agreed) {
            ISG_LOG_WARNING("clCreateProgramWithBinary: the binaries for devices 0 and "
                            << i << " come from different rewrites of a program");
            status[i] = CL_INVALID_BINARY;
            invalid = true;
          }
          break;
      }
    }
    if (!enveloped && !invalid) return create(lengths, binaries);  // the driver's own binaries
    // One program's kernels are either the layer's or the driver's, on every device.
    for (cl_uint i = 0; i < num_devices && enveloped; ++i)
      if (plain[i]) {
        ISG_LOG_WARNING("clCreateProgramWithBinary: the binary for device "
                        << i << " is a driver binary, the others are a rewritten program's");
        status[i] = CL_INVALID_BINARY;
        invalid = true;
      }
    if (invalid) {
      if (binary_status) std::copy(status.begin(), status.end(), binary_status);
      if (errcode_ret) *errcode_ret = CL_INVALID_BINARY;
      return nullptr;
    }
    cl_program program = create(driverLengths.data(), driverBinaries.data());
    if (program) programRegistry().put(program, recordOf(program, std::move(payload)));
    return program;
  });
}

}  // namespace isg
