// SPDX-License-Identifier: MIT
// A kernel parameter as clGetKernelArgInfo describes it (isg::ArgInfo), from the application's
// declaration, spelled as Clang's kernel_arg_* metadata spells it for the drivers that answer
// from it (PoCL, Intel's compiler, NVIDIA's): the layer must answer the same words.
#pragma once

#include "isg/rewriter.h"

namespace clang {
class ASTContext;
class ParmVarDecl;
}  // namespace clang

namespace isg::detail {

ArgInfo argInfoOf(const clang::ParmVarDecl& parameter, const clang::ASTContext& context);

}  // namespace isg::detail
