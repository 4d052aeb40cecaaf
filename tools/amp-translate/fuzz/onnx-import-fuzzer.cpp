//===- onnx-import-fuzzer.cpp - libFuzzer target for the ONNX importer ----===//
//
// Feeds arbitrary bytes to importONNXBuffer as a serialized ModelProto. Any
// input must end in a module that verifies or in reported errors: no crash,
// no sanitizer report, no hang, no internal error. With -external_data_dir=DIR,
// the model is taken to live in DIR, so that external data is read from there.
//
// Built with the deterministic mutation driver (tools/fuzz, amp-onnx-fuzz,
// run by test/Target/ONNX/fuzz.test) and with libFuzzer by
// run-onnx-fuzzer.sh (clang-22, -fsanitize=fuzzer,address,undefined).
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
#include <cstring>
#include <string>

namespace {
/// The path the model is imported as (empty: no external data).
std::string modelPath;
} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *flag = "-external_data_dir=";
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], flag, std::strlen(flag)) == 0)
      modelPath = std::string((*argv)[i] + std::strlen(flag)) + "/fuzzed.onnx";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Errors are expected; an internal error (a module that does not verify)
  // is an importer bug, and ends the run like a crash.
  bool internalError = false;
  std::string message;
  mlir::ScopedDiagnosticHandler quiet(&context, [&](mlir::Diagnostic &diag) {
    std::string text = diag.str();
    if (llvm::StringRef(text).starts_with("internal error")) {
      internalError = true;
      message = text;
    }
    return mlir::success();
  });
  mlir::amp::ONNXImportOptions options;
  // Bound import-time folding so that a tiny input cannot ask for gigabytes.
  options.maxFoldedElements = int64_t(1) << 16;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto result =
      mlir::amp::importONNXBuffer(bytes, modelPath, &context, options);
  if (internalError) {
    llvm::errs() << "onnx-import-fuzzer: " << message << "\n";
    std::abort();
  }
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
