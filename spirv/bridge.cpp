// SPDX-License-Identifier: MIT
// libIntelSubgroupsSpirv.so: SPIRV-LLVM-Translator behind the byte interface of bridge.h.
#include "bridge.h"

#include <LLVMSPIRVLib.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>

namespace {

bool give(const std::string& text, isg_spirv_bytes* out) {
  if (!out) return false;
  out->size = text.size();
  out->data = static_cast<char*>(std::malloc(text.size() + 1));
  if (!out->data) {
    out->size = 0;
    return false;
  }
  std::memcpy(out->data, text.data(), text.size());
  out->data[text.size()] = '\0';
  return true;
}

int fail(const std::string& message, isg_spirv_bytes* error) {
  give(message.empty() ? std::string("the SPIR-V translator failed without a message") : message,
       error);
  return 1;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int isg_spirv_abi(void) { return ISG_SPIRV_BRIDGE_ABI; }

__attribute__((visibility("default"))) int isg_spirv_to_bitcode(const void* spirv, size_t size,
                                                                isg_spirv_bytes* bitcode,
                                                                isg_spirv_bytes* error) {
  try {
    llvm::LLVMContext context;
    // Typed pointers: the translator of LLVM 15 reads and writes them (its llvm-spirv does the
    // same), and the rewriter compiles its library the same way.
    context.setOpaquePointers(false);
    SPIRV::TranslatorOpts opts(SPIRV::VersionNumber::MaximumVersion);
    opts.enableAllExtensions();
    // Builtins come back as OpenCL C 2.0 calls (get_global_id, sub_group_reduce_add,
    // intel_sub_group_shuffle...), the names the rewriter's table knows.
    opts.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL20);
    opts.enableGenArgNameMD();
    std::istringstream in(std::string(static_cast<const char*>(spirv), size));
    llvm::Module* module = nullptr;
    std::string message;
    if (!llvm::readSpirv(context, opts, in, module, message) || !module)
      return fail(message, error);
    std::unique_ptr<llvm::Module> owned(module);
    std::string out;
    llvm::raw_string_ostream os(out);
    llvm::WriteBitcodeToFile(*owned, os);
    os.flush();
    return give(out, bitcode) ? 0 : fail("out of memory", error);
  } catch (const std::exception& e) {
    return fail(e.what(), error);
  } catch (...) {
    return fail("the SPIR-V translator threw", error);
  }
}

__attribute__((visibility("default"))) int isg_bitcode_to_spirv(const void* bitcode, size_t size,
                                                                unsigned max_version,
                                                                isg_spirv_bytes* spirv,
                                                                isg_spirv_bytes* error) {
  try {
    llvm::LLVMContext context;
    context.setOpaquePointers(false);
    auto buffer = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(static_cast<const char*>(bitcode), size), "isg-bitcode", false);
    llvm::Expected<std::unique_ptr<llvm::Module>> module =
        llvm::parseBitcodeFile(buffer->getMemBufferRef(), context);
    if (!module) return fail(llvm::toString(module.takeError()), error);
    unsigned v = max_version;
    if (v < unsigned(SPIRV::VersionNumber::MinimumVersion)) v = unsigned(SPIRV::VersionNumber::MinimumVersion);
    if (v > unsigned(SPIRV::VersionNumber::MaximumVersion)) v = unsigned(SPIRV::VersionNumber::MaximumVersion);
    SPIRV::TranslatorOpts opts(static_cast<SPIRV::VersionNumber>(v));
    std::ostringstream out;
    std::string message;
    if (!llvm::writeSpirv(module->get(), opts, out, message)) return fail(message, error);
    return give(out.str(), spirv) ? 0 : fail("out of memory", error);
  } catch (const std::exception& e) {
    return fail(e.what(), error);
  } catch (...) {
    return fail("the SPIR-V translator threw", error);
  }
}

__attribute__((visibility("default"))) void isg_spirv_free(isg_spirv_bytes* bytes) {
  if (!bytes) return;
  std::free(bytes->data);
  bytes->data = nullptr;
  bytes->size = 0;
}

}  // extern "C"
