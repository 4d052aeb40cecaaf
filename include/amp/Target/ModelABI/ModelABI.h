//===- ModelABI.h - renamed ModelLibrary.h ----------------------*- C++ -*-===//
//
// The compile side of model libraries is amp/Target/ModelLibrary/
// ModelLibrary.h now (only include/amp/Runtime/ModelABI.h, the C ABI, keeps
// the name ModelABI.h). This header remains only while
// include/amp/Driver/Driver.h, tools/amp-compile/amp-compile.cpp and
// tools/amp-opt/amp-opt.cpp include it by this name; delete it then.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_MODELABI_MODELABI_H
#define AMP_TARGET_MODELABI_MODELABI_H

#include "amp/Target/ModelLibrary/ModelLibrary.h"

#endif // AMP_TARGET_MODELABI_MODELABI_H
