//===- onnx-import-fuzzer.cpp - libFuzzer target for the ONNX importer ----===//
//
// Feeds arbitrary bytes to importONNXBuffer as a serialized ModelProto. Any
// input must end in a module that verifies or in reported errors: no crash,
// no sanitizer report, no hang. Built and run by run-onnx-fuzzer.sh with
// clang-22 (-fsanitize=fuzzer,address,undefined).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Target/ONNX/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::amp::ONNXImportOptions options;
  // Bound import-time folding so that a tiny input cannot ask for gigabytes.
  options.maxFoldedElements = int64_t(1) << 16;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto result =
      mlir::amp::importONNXBuffer(bytes, /*modelPath=*/"", &context, options);
  if (mlir::succeeded(result)) {
    // A successful import must verify and print.
    if (mlir::failed(mlir::verify(*result->module)))
      std::abort();
    std::string text;
    llvm::raw_string_ostream os(text);
    result->module->print(os);
  }
  return 0;
}
