// SPDX-License-Identifier: MIT
// arg_info.h, after Clang 15's CodeGenModule::GenKernelArgMetadata.
#include "common/arg_info.h"

#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>

namespace isg::detail {
namespace {

ArgInfo::Address addressOf(clang::LangAS space) {
  switch (space) {
    case clang::LangAS::opencl_global: return ArgInfo::Address::Global;
    case clang::LangAS::opencl_constant: return ArgInfo::Address::Constant;
    case clang::LangAS::opencl_local: return ArgInfo::Address::Local;
    default: return ArgInfo::Address::Private;
  }
}

// The type as written, without qualifiers; a canonical "unsigned int" is "uint", as OpenCL C
// names it.
std::string spelling(clang::QualType type, const clang::PrintingPolicy& policy) {
  std::string name = type.getUnqualifiedType().getAsString(policy);
  if (type.isCanonical()) {
    if (name.rfind("unsigned ", 0) == 0) return "u" + name.substr(9);
    if (name.rfind("signed ", 0) == 0) return name.substr(7);
  }
  return name;
}

// Image types print with their access qualifier ("__read_only image2d_t"); the query has its
// own question for that.
void dropImageAccess(std::string* name) {
  for (const char* q : {"__read_only ", "__write_only ", "__read_write "})
    if (std::size_t at = name->find(q); at != std::string::npos) name->erase(at, std::string(q).size());
}

}  // namespace

ArgInfo argInfoOf(const clang::ParmVarDecl& parameter, const clang::ASTContext& context) {
  const clang::PrintingPolicy& policy = context.getPrintingPolicy();
  ArgInfo a;
  a.name = parameter.getNameAsString();
  clang::QualType type = parameter.getType();
  if (type->isImageType() || type->isPipeType()) {
    const clang::Decl* declared = &parameter;
    if (const auto* typedefType = llvm::dyn_cast<clang::TypedefType>(type)) declared = typedefType->getDecl();
    const auto* access = declared->getAttr<clang::OpenCLAccessAttr>();
    a.access = access && access->isWriteOnly()   ? ArgInfo::Access::WriteOnly
               : access && access->isReadWrite() ? ArgInfo::Access::ReadWrite
                                                 : ArgInfo::Access::ReadOnly;
  }
  if (type->isPointerType()) {
    const clang::QualType pointee = type->getPointeeType();
    a.address = addressOf(pointee.getAddressSpace());
    a.typeName = spelling(pointee, policy) + "*";
    if (type.isRestrictQualified()) a.typeQualifiers |= ArgInfo::Restrict;
    if (pointee.isConstQualified() || pointee.getAddressSpace() == clang::LangAS::opencl_constant)
      a.typeQualifiers |= ArgInfo::Const;
    if (pointee.isVolatileQualified()) a.typeQualifiers |= ArgInfo::Volatile;
    return a;
  }
  const bool pipe = type->isPipeType();
  if (type->isImageType() || pipe) a.address = ArgInfo::Address::Global;
  if (pipe) {
    type = type->castAs<clang::PipeType>()->getElementType();
    a.typeQualifiers |= ArgInfo::Pipe;
  }
  a.typeName = spelling(type, policy);
  if (type->isImageType()) dropImageAccess(&a.typeName);
  return a;
}

}  // namespace isg::detail
