//===- LoadedModel.h - moved to amp/Host ------------------------*- C++ -*-===//
//
// The loader moved to lib/Host (amp/Host/LoadedModel.h), the checksum
// trailer to amp/Host/LibraryChecksum.h. This header remains only while
// lib/Runtime/DataParallel.cpp, which reads the trailer, still includes it
// by this name; delete it when that include names amp/Host/LibraryChecksum.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_MODELABI_LOADEDMODEL_H
#define AMP_TARGET_MODELABI_LOADEDMODEL_H

#include "amp/Host/LibraryChecksum.h"

#endif // AMP_TARGET_MODELABI_LOADEDMODEL_H
