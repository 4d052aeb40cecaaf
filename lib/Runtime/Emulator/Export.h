//===- Export.h - symbols libamp_cuda_emulator.so exports -------*- C++ -*-===//
//
// The library is built with hidden visibility; only the driver API and
// cuBLASLt functions it stands in for (and the emulator's extension) are
// exported, under the names lib/Runtime resolves with dlsym.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_EMULATOR_EXPORT_H
#define AMP_LIB_RUNTIME_EMULATOR_EXPORT_H

#define AMP_EMU_EXPORT extern "C" __attribute__((visibility("default")))

#endif // AMP_LIB_RUNTIME_EMULATOR_EXPORT_H
