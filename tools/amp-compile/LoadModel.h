//===- LoadModel.h - amp-compile's input ------------------------*- C++ -*-===//

#ifndef AMP_TOOLS_AMP_COMPILE_LOADMODEL_H
#define AMP_TOOLS_AMP_COMPILE_LOADMODEL_H

#include "amp/Target/ModelABI/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace ampcompile {
/// An error for the user: "amp-compile: error: <message>".
mlir::LogicalResult error(const llvm::Twine &message);

/// Reads the model at `inputFilename`: MLIR (text or bytecode), or ONNX with
/// its initializers as `initial` values and `inputShapes` (--input-shape)
/// fixing its dynamic dimensions. Reports why it cannot.
mlir::OwningOpRef<mlir::ModuleOp>
loadModel(mlir::MLIRContext &context, llvm::SourceMgr &sources,
          llvm::StringRef inputFilename,
          llvm::ArrayRef<std::string> inputShapes,
          mlir::amp::InitialValues &initial);
} // namespace ampcompile

#endif // AMP_TOOLS_AMP_COMPILE_LOADMODEL_H
