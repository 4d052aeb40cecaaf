//===- AmpModule.cpp - the amp Python extension (_amp) --------------------===//
//
// The compile flow of lib/Driver on a model held in memory (ONNX bytes, or
// an amp dialect module in MLIR text with its initial values), and a
// compiled library loaded through lib/Host's loader (LoadedModel) with its
// state: the C++ half of the `amp` package (python/amp). Errors of the
// library come back as amp.AmpError with amp_last_error()'s text; the MLIR
// diagnostics of a failed compilation are collected into the message.
//
// Tensors cross through the Python buffer protocol only: out as _amp.Tensor,
// in as any buffer, checked against the tensor's dtype, shape and layout.
// python/amp/_tensors.py turns them into numpy arrays and torch tensors.
// numpy's C API (pybind11/numpy.h) is not used: its structures changed in
// numpy 2, and one build serves numpy 1 and 2.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Driver/Driver.h"
#include "amp/Host/LoadedModel.h"
#include "amp/Host/NonfiniteFinder.h"
#include "amp/Host/Stepper.h"
#include "amp/Support/NestingDepth.h"
#include "amp/Support/ToolIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace py = pybind11;
using namespace mlir;
using mlir::amp::LoadedModel;

namespace {
/// Every failure the extension reports (amp.AmpError in Python).
struct AmpError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// Tensors through the buffer protocol
//===----------------------------------------------------------------------===//

/// An element as the buffer protocol describes it: its kind ('f' float,
/// 'i' signed and 'u' unsigned integer, 'b' bool, 'c' char) and size.
struct Element {
  char kind;
  py::ssize_t size;
};

/// amp's dtypes (amp_dtype order) as buffers carry them. bf16 travels as
/// int16 (neither numpy nor the buffer protocol has a bfloat16);
/// _tensors.py views it as torch.bfloat16.
struct DtypeFormat {
  const char *name;
  const char *format;
  Element element;
};
constexpr DtypeFormat kDtypeFormats[] = {
    {"float32", "f", {'f', 4}},
    {"float16", "e", {'f', 2}},
    {"bfloat16", "h", {'i', 2}},
    // Where a C long has 64 bits, 'l' is numpy.int64 itself (what torch's
    // numpy() gives) rather than numpy.longlong.
    {"int64", sizeof(long) == 8 ? "l" : "q", {'i', 8}},
    {"int32", "i", {'i', 4}},
    {"bool", "?", {'b', 1}},
};
static_assert(AMP_DTYPE_F32 == 0 && AMP_DTYPE_BF16 == 2 && AMP_DTYPE_I1 == 5,
              "kDtypeFormats follows amp_dtype");

/// The format of an amp dtype; AmpError for a dtype this extension does not
/// know (a library newer than it).
const DtypeFormat &dtypeFormat(int32_t dtype) {
  if (dtype < 0 || dtype >= int32_t(std::size(kDtypeFormats)))
    throw AmpError("the library has a tensor of unknown dtype " +
                   std::to_string(dtype) + ": rebuild amp");
  return kDtypeFormats[dtype];
}

const char *dtypeName(int32_t dtype) {
  return dtype >= 0 && dtype < int32_t(std::size(kDtypeFormats))
             ? kDtypeFormats[dtype].name
             : "unknown";
}

/// The element of a buffer's struct-module format, or none for what amp
/// never takes: another byte order, several fields, pointers.
std::optional<Element> elementOf(const py::buffer_info &buffer) {
  llvm::StringRef format = buffer.format;
  // '@' and '=' are the native byte order, and so is '<' or '>' where it
  // is the host's.
  char native = llvm::sys::IsLittleEndianHost ? '<' : '>';
  if (!format.empty() &&
      (format[0] == '@' || format[0] == '=' || format[0] == native))
    format = format.drop_front();
  if (format.size() != 1)
    return std::nullopt;
  switch (format[0]) {
  case 'e':
  case 'f':
  case 'd':
    return Element{'f', buffer.itemsize};
  case 'b':
  case 'h':
  case 'i':
  case 'l':
  case 'q':
  case 'n':
    return Element{'i', buffer.itemsize};
  case 'B':
  case 'H':
  case 'I':
  case 'L':
  case 'Q':
  case 'N':
    return Element{'u', buffer.itemsize};
  case '?':
    return Element{'b', buffer.itemsize};
  case 'c':
    return Element{'c', buffer.itemsize};
  default:
    return std::nullopt;
  }
}

/// What a buffer holds, in numpy's words ("numpy dtype float64").
std::string describeElement(const py::buffer_info &buffer) {
  std::optional<Element> element = elementOf(buffer);
  if (!element || element->kind == 'c')
    return "buffer format '" + buffer.format + "'";
  std::string bits = std::to_string(element->size * 8);
  switch (element->kind) {
  case 'f':
    return "numpy dtype float" + bits;
  case 'i':
    return "numpy dtype int" + bits;
  case 'u':
    return "numpy dtype uint" + bits;
  default:
    return element->size == 1 ? "numpy dtype bool"
                              : "buffer format '" + buffer.format + "'";
  }
}

/// A shape as Python prints a tuple: (), (3,), (2, 3).
template <typename T> std::string shapeText(llvm::ArrayRef<T> shape) {
  std::string text = "(";
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(dim);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::vector<py::ssize_t> contiguousStrides(llvm::ArrayRef<py::ssize_t> shape,
                                           py::ssize_t itemsize) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

/// Fails unless the bytes of `buffer` are its elements in C order, one
/// after the other (the stride of a dimension of size 1 does not matter):
/// a ValueError naming `what`.
void checkContiguous(const std::string &what, const py::buffer_info &buffer) {
  std::vector<py::ssize_t> expected =
      contiguousStrides(buffer.shape, buffer.itemsize);
  if (llvm::is_contained(buffer.shape, 0))
    return;
  for (size_t i = 0; i < expected.size(); ++i)
    if (buffer.shape[i] != 1 && buffer.strides[i] != expected[i])
      throw py::value_error(
          what + " must be C-contiguous (strides " +
          shapeText(llvm::ArrayRef(expected)) + " in bytes), got strides " +
          shapeText(llvm::ArrayRef(buffer.strides)) +
          ": make a contiguous copy (numpy.ascontiguousarray)");
}

/// Fails unless `buffer` holds a tensor of amp dtype `dtype` and `shape`
/// in C order, so that its bytes are the tensor's as they are: a TypeError
/// (dtype) or ValueError (shape, layout) naming `what`, never a conversion.
void checkBuffer(const std::string &what, const py::buffer_info &buffer,
                 int32_t dtype, llvm::ArrayRef<int64_t> shape) {
  const DtypeFormat &expected = dtypeFormat(dtype);
  std::optional<Element> element = elementOf(buffer);
  if (!element || element->kind != expected.element.kind ||
      element->size != expected.element.size)
    throw py::type_error(
        what + " must be " + expected.name +
        (dtype == AMP_DTYPE_BF16 ? " (as its int16 view)" : "") + ", got " +
        describeElement(buffer));
  if (!llvm::equal(buffer.shape, shape))
    throw py::value_error(what + " must have shape " + shapeText(shape) +
                          ", got " + shapeText(llvm::ArrayRef(buffer.shape)));
  checkContiguous(what, buffer);
}

/// The buffer of `value`, read-only; a TypeError naming `what` when it has
/// none.
py::buffer_info requestBuffer(const py::handle &value,
                              const std::string &what) {
  if (!PyObject_CheckBuffer(value.ptr()))
    throw py::type_error(
        what +
        " must support the buffer protocol (a numpy array; "
        "amp._tensors.as_array converts a torch tensor), got " +
        std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  return py::reinterpret_borrow<py::buffer>(value).request();
}

/// A tensor handed to Python, read through the buffer protocol
/// (numpy.asarray, memoryview): a view of a state's tensor, which it keeps
/// alive, or its own copy.
class Tensor {
public:
  /// A view of `data`, which lives as long as `owner`.
  Tensor(std::string name, int32_t dtype, std::vector<py::ssize_t> shape,
         void *data, py::object owner)
      : name(std::move(name)), dtype(dtype), shape(std::move(shape)),
        data(data), owner(std::move(owner)) {
    // An unknown dtype fails here rather than in the buffer protocol.
    (void)dtypeFormat(dtype);
  }
  /// A copy of `data`.
  Tensor(std::string name, int32_t dtype, std::vector<py::ssize_t> shape,
         const void *source)
      : Tensor(std::move(name), dtype, std::move(shape), nullptr, py::none()) {
    storage = std::make_unique<char[]>(numBytes());
    std::memcpy(storage.get(), source, numBytes());
    data = storage.get();
  }

  size_t numBytes() const {
    size_t bytes = dtypeFormat(dtype).element.size;
    for (py::ssize_t dim : shape)
      bytes *= dim;
    return bytes;
  }

  py::buffer_info buffer() const {
    const DtypeFormat &format = dtypeFormat(dtype);
    return py::buffer_info(data, format.element.size, format.format,
                           py::ssize_t(shape.size()), shape,
                           contiguousStrides(shape, format.element.size));
  }

  std::string name;
  int32_t dtype;
  std::vector<py::ssize_t> shape;

private:
  void *data;
  py::object owner;
  std::unique_ptr<char[]> storage;
};

void bindTensor(py::module_ &m) {
  py::class_<Tensor>(m, "Tensor", py::buffer_protocol(),
                     "A tensor of a model's state (a view that keeps the "
                     "state alive) or an evaluation result (a copy); "
                     "numpy.asarray reads it in place, bf16 as int16.")
      .def_buffer(&Tensor::buffer)
      .def_readonly("name", &Tensor::name)
      .def_property_readonly(
          "dtype", [](const Tensor &tensor) { return dtypeName(tensor.dtype); })
      .def_property_readonly("shape",
                             [](const Tensor &tensor) {
                               return py::tuple(py::cast(tensor.shape));
                             })
      .def("__repr__", [](const Tensor &tensor) {
        return "<amp Tensor '" + tensor.name + "' " + dtypeName(tensor.dtype) +
               " " + shapeText(llvm::ArrayRef(tensor.shape)) + ">";
      });
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// "NAME: message" for a location with a name (ONNX node names, the op's
/// location in the IR), followed by the file position under it when it has
/// one ("NAME: FILE:LINE:COL: message"; ONNX's line 0 is none);
/// "FILE:LINE:COL: message" for a file location.
void printLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << name.getName().getValue() << ": ";
    if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc()))
      if (file.getLine() > 0)
        printLocation(file, os);
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
    return;
  }
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return printLocation(call.getCallee(), os);
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      printLocation(fused.getLocations().front(), os);
}

/// The errors a compilation reports, one line each.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return success();
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          std::string body = diagnostic.str();
          std::string place;
          llvm::raw_string_ostream placeStream(place);
          printLocation(diagnostic.getLocation(), placeStream);
          // ONNX errors name their node already.
          if (place.size() < 2 ||
              body.find(place.substr(0, place.size() - 2)) == std::string::npos)
            os << place;
          os << body;
          for (const Diagnostic &note : diagnostic.getNotes())
            os << "\n  note: " << note;
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// What compile_onnx and compile_mlir share: the training pipeline's
/// options (a pipeline option string, "precision=bf16 lr=0.001"), the
/// library to write and how to link it, and whether every op is checked
/// for inf/NaN (amp.debug).
struct CompileArguments {
  std::string optionText, output, prefix, cxx;
  bool instrumentNonfinite;
};

/// Loads the model into a context (its initial values into `initial`):
/// null with `message` set, or empty when the diagnostics said why.
using ModelLoader = llvm::function_ref<OwningOpRef<ModuleOp>(
    MLIRContext &context, mlir::amp::InitialValues &initial,
    std::string &message)>;

/// Compiles the model `load` gives (`modelName` in errors) into the library
/// at `arguments.output`. Returns the warnings; AmpError with the
/// diagnostics.
std::vector<std::string> compileLoadedModel(llvm::StringRef modelName,
                                            const CompileArguments &arguments,
                                            ModelLoader load) {
  mlir::amp::TrainingPipelineOptions options;
  std::string message;
  llvm::raw_string_ostream optionErrors(message);
  if (failed(options.parseFromString(arguments.optionText, optionErrors)))
    throw AmpError("invalid compile options: " + message);
  options.modelABI = true;
  options.linker = arguments.cxx;
  if (failed(options.verify("", message)))
    throw AmpError(message);

  DialectRegistry registry;
  mlir::amp::registerCompileDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(context);
  std::vector<std::string> warnings;
  mlir::amp::InitialValues initial;
  OwningOpRef<ModuleOp> module = load(context, initial, message);
  if (module) {
    mlir::amp::CompileRequest request;
    request.modelName = modelName.str();
    request.output = arguments.output;
    request.instrumentNonfinite = arguments.instrumentNonfinite;
    request.library.compiler = arguments.cxx;
    request.library.prefix = arguments.prefix;
    request.library.cuda = options.target != mlir::amp::TrainingTarget::CPU;
    request.library.emulator =
        options.target == mlir::amp::TrainingTarget::CUDAEmulator;
    request.warn = [&](StringRef warning) {
      warnings.push_back(warning.str());
    };
    if (succeeded(mlir::amp::compileModel(*module, initial, options, request,
                                          message)))
      return warnings;
  }
  std::string reason = diagnostics.text;
  if (!message.empty())
    reason += (reason.empty() ? "" : "\n") + message;
  throw AmpError(reason.empty() ? "compilation failed" : reason);
}

/// Imports the ONNX model in `bytes`, fixing its dynamic input dimensions
/// with `shapes` (NAME=D0xD1...) and deciding what trains with `trainable`
/// (initializer names) and `paddingIndices` (embedding tables' padding
/// rows), then compiles it (compileLoadedModel).
std::vector<std::string>
compileONNX(const std::string &bytes, const std::string &optionText,
            const std::vector<std::string> &shapes, const std::string &output,
            const std::string &prefix, const std::string &cxx,
            bool instrumentNonfinite,
            std::optional<std::vector<std::string>> trainable,
            std::optional<std::map<std::string, int64_t>> paddingIndices) {
  mlir::amp::ONNXTensorRules rules;
  rules.trainable = std::move(trainable);
  if (paddingIndices)
    rules.paddingIndices.assign(paddingIndices->begin(), paddingIndices->end());
  return compileLoadedModel(
      "model.onnx", {optionText, output, prefix, cxx, instrumentNonfinite},
      [&](MLIRContext &context, mlir::amp::InitialValues &initial,
          std::string &message) {
        return mlir::amp::importONNXModel(context, bytes, "model.onnx", shapes,
                                          "input_shapes", initial, message,
                                          rules);
      });
}

/// The amp dtype of an element type, if the model ABI has it.
std::optional<int32_t> abiDtype(Type type) {
  if (type.isF32())
    return AMP_DTYPE_F32;
  if (type.isF16())
    return AMP_DTYPE_F16;
  if (type.isBF16())
    return AMP_DTYPE_BF16;
  if (type.isInteger(64))
    return AMP_DTYPE_I64;
  if (type.isInteger(32))
    return AMP_DTYPE_I32;
  if (type.isInteger(1))
    return AMP_DTYPE_I1;
  return std::nullopt;
}

/// compile_mlir's initial values, by amp.name.
using NamedBuffers = std::map<std::string, py::buffer_info>;

/// Makes `values` the initial values of the parameters and buffers of the
/// module's graph (its forward model, else its training step): each one
/// needs a value, and each value a parameter or buffer. A value is either
/// raw bytes (bytes, a uint8 buffer) of the tensor's size or a buffer of the
/// tensor's dtype and shape (checkBuffer). ValueError or TypeError naming
/// the tensor otherwise.
void addInitialValues(ModuleOp module, const NamedBuffers &values,
                      mlir::amp::InitialValues &initial) {
  auto graph = mlir::amp::findForward<func::FuncOp>(module);
  if (!graph)
    graph = mlir::amp::findTrainingStep<func::FuncOp>(module);
  // Without a graph, the compilation says so.
  if (!graph)
    return;
  std::set<std::string> used;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    DictionaryAttr attrs = graph.getArgAttrDict(i);
    std::optional<mlir::amp::Role> role = mlir::amp::getRole(attrs);
    if (role != mlir::amp::Role::Parameter && role != mlir::amp::Role::Buffer)
      continue;
    std::string name = mlir::amp::getAMPName(attrs).str();
    std::string tensor =
        mlir::amp::stringifyRole(*role).str() + " '" + name + "'";
    std::string what = "the initial value of " + tensor;
    auto value = values.find(name);
    if (value == values.end())
      throw py::value_error("initial_values has no value for " + tensor);
    used.insert(name);
    // Other types and dynamic shapes are the model ABI's errors, later.
    auto type = dyn_cast<RankedTensorType>(graph.getArgumentTypes()[i]);
    std::optional<int32_t> dtype =
        type ? abiDtype(type.getElementType()) : std::nullopt;
    if (!dtype || !type.hasStaticShape())
      continue;
    const py::buffer_info &buffer = value->second;
    std::optional<Element> element = elementOf(buffer);
    bool rawBytes = element && (element->kind == 'u' || element->kind == 'c') &&
                    element->size == 1 && buffer.ndim == 1;
    size_t bytes =
        dtypeFormat(*dtype).element.size * size_t(type.getNumElements());
    if (!rawBytes) {
      checkBuffer(what, buffer, *dtype, type.getShape());
    } else {
      if (size_t(buffer.size) != bytes)
        throw py::value_error(what + " must have " + std::to_string(bytes) +
                              " bytes (" + dtypeName(*dtype) + " " +
                              shapeText(type.getShape()) + "), got " +
                              std::to_string(buffer.size));
      checkContiguous(what, buffer);
    }
    initial.add(name,
                llvm::ArrayRef(static_cast<const char *>(buffer.ptr), bytes));
  }
  for (const auto &entry : values)
    if (!used.count(entry.first))
      throw py::value_error("initial_values has '" + entry.first +
                            "', which is no parameter or buffer of the model");
}

/// Parses `text` (an amp dialect module in MLIR text or bytecode) and
/// compiles it (compileLoadedModel) with `values` as its initial values.
std::vector<std::string> compileMLIR(const std::string &text,
                                     const NamedBuffers &values,
                                     const CompileArguments &arguments) {
  constexpr llvm::StringLiteral name = "model.mlir";
  return compileLoadedModel(
      name, arguments,
      [&](MLIRContext &context, mlir::amp::InitialValues &initial,
          std::string &message) -> OwningOpRef<ModuleOp> {
        // The parser recurses per level of nesting: deep text would
        // overflow the stack.
        if (!::amp::isMLIRBytecode(text) &&
            !::amp::checkNestingDepth(text, ::amp::NestingSyntax::MLIR,
                                      name.str(), "the MLIR input", message))
          return nullptr;
        llvm::SourceMgr sources;
        // A copy ends in the NUL the lexer stops at.
        sources.AddNewSourceBuffer(
            llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
        OwningOpRef<ModuleOp> module =
            parseSourceFile<ModuleOp>(sources, ParserConfig(&context));
        if (!module)
          return nullptr;
        if (!::amp::checkBytecodeNesting(text, name, *module, message)) {
          // Not destroyed: destroying deeply nested regions recurses too.
          (void)module.release();
          return nullptr;
        }
        addInitialValues(*module, values, initial);
        return module;
      });
}

/// compile_mlir's initial values as buffers (held, with the GIL, by the
/// caller while the compilation runs without it).
NamedBuffers requestInitialValues(const py::dict &values) {
  NamedBuffers buffers;
  for (auto [key, value] : values) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error(
          "initial_values must map names (str) to buffers, "
          "got a key of type " +
          std::string(py::str(py::type::handle_of(key).attr("__name__"))));
    std::string name = key.cast<std::string>();
    buffers.emplace(name, requestBuffer(value, "initial value '" + name + "'"));
  }
  return buffers;
}

//===----------------------------------------------------------------------===//
// Libraries and states
//===----------------------------------------------------------------------===//

const char *roleName(int32_t role) {
  static const char *names[] = {
      "parameter",    "input",          "label",   "loss",   "optimizer_state",
      "scaler_state", "hyperparameter", "skipped", "output", "buffer"};
  return role >= 0 && role < int32_t(std::size(names)) ? names[role]
                                                       : "unknown";
}

py::dict describeTensor(const amp_tensor_info &info, const LoadedModel &abi) {
  py::dict tensor;
  tensor["name"] = info.name;
  tensor["role"] = roleName(info.role);
  tensor["dtype"] = dtypeName(info.dtype);
  // The low-precision copy of a master weight names its parameter.
  tensor["copy_of"] = info.copy_of >= 0 && info.copy_of < abi.numTensors()
                          ? py::object(py::str(abi.tensor(info.copy_of)->name))
                          : py::object(py::none());
  tensor["shape"] = py::tuple(
      py::cast(std::vector<int64_t>(info.shape, info.shape + info.rank)));
  return tensor;
}

std::vector<py::ssize_t> shapeOf(const amp_tensor_info &info) {
  return std::vector<py::ssize_t>(info.shape, info.shape + info.rank);
}

/// A loaded library (shared by its states, which it outlives).
class Library {
public:
  explicit Library(const std::string &path) {
    std::string error;
    model = LoadedModel::open(path, error);
    if (!model)
      throw AmpError(error);
      // The model ABI as the host library's Stepper calls it.
#define AMP_COPY_FUNCTION(symbol, member) bound.member = model->member;
    AMP_MODEL_ABI_FUNCTIONS(AMP_COPY_FUNCTION)
    AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_COPY_FUNCTION)
#undef AMP_COPY_FUNCTION
  }
  const LoadedModel &abi() const { return *model; }
  const ::amp::Model &boundModel() const { return bound; }
  [[noreturn]] void fail(const std::string &what) const {
    throw AmpError(what + ": " + model->lastError());
  }
  const amp_tensor_info *find(const std::string &name) const {
    for (int32_t i = 0; i < model->numTensors(); ++i)
      if (name == model->tensor(i)->name)
        return model->tensor(i);
    return nullptr;
  }

private:
  std::unique_ptr<LoadedModel> model;
  ::amp::Model bound;
};

/// The state of one model: its tensors are Tensor views of the library's
/// buffers (each keeps the state alive).
class State {
public:
  State(std::shared_ptr<Library> library, uint64_t seed)
      : library(std::move(library)) {
    state = abi().create(seed);
    if (!state)
      this->library->fail("cannot create the model's state");
    stepper.emplace(this->library->boundModel(), state);
  }
  ~State() { abi().destroy(state); }

  /// What the precision debugger (NonfiniteFinderBinding) reads.
  mlir::amp::TrainedModel trained() const {
    return {abi().numTensors, abi().tensor, abi().stateTensor, abi().lastError};
  }
  amp_state *handle() const { return state; }

  Tensor tensor(py::object self, const std::string &name) {
    const amp_tensor_info *info = find(name);
    void *data = abi().stateTensor(state, name.c_str());
    if (!data)
      library->fail("cannot read tensor '" + name + "'");
    return Tensor(name, info->dtype, shapeOf(*info), data, std::move(self));
  }

  /// Copies `value` (anything with the buffer protocol, of the tensor's
  /// dtype and shape, C-contiguous) into the tensor `name`, read in place.
  void set(const std::string &name, const py::object &value) {
    const amp_tensor_info *info = find(name);
    std::string what = "'" + name + "'";
    py::buffer_info buffer = requestBuffer(value, what);
    checkBuffer(what, buffer, info->dtype,
                llvm::ArrayRef(info->shape, info->rank));
    void *data = abi().stateTensor(state, name.c_str());
    if (!data)
      library->fail("cannot write tensor '" + name + "'");
    std::memcpy(data, buffer.ptr, size_t(buffer.size * buffer.itemsize));
  }

  /// One call of the training step (a micro-batch), without the GIL.
  std::pair<float, bool> trainStep() {
    ::amp::Stepper::MicroBatch result;
    std::string error;
    bool ran;
    {
      py::gil_scoped_release release;
      ran = stepper->trainMicroBatch(result, error);
    }
    if (!ran)
      throw AmpError("the training step failed: " + error);
    return {result.loss, result.skipped != 0};
  }

  /// The per-step rules on this state (Stepper, bound as _amp.Stepper).
  ::amp::Stepper &getStepper() { return *stepper; }

  /// The forward model's results as (name, role, Tensor), copied out.
  py::list eval() {
    if (!abi().hasEval())
      throw AmpError("the library has no forward model to evaluate");
    if (!abi().numEvalResults)
      throw AmpError("the library predates eval outputs: compile it again");
    int32_t status;
    {
      py::gil_scoped_release release;
      status = abi().eval(state, nullptr);
    }
    if (status)
      library->fail("evaluation failed");
    py::list results;
    for (int32_t i = 0; i < abi().numEvalResults(); ++i) {
      const amp_tensor_info *info = abi().evalResultInfo(i);
      const void *data = abi().evalResult(state, i);
      if (!info || !data)
        library->fail("cannot read evaluation result " + std::to_string(i));
      results.append(py::make_tuple(
          info->name, roleName(info->role),
          Tensor(info->name, info->dtype, shapeOf(*info), data)));
    }
    return results;
  }

  void save(const std::string &path) {
    if (abi().save(state, path.c_str()))
      library->fail("cannot save the state");
  }
  void load(const std::string &path) {
    if (abi().load(state, path.c_str()))
      library->fail("cannot load the state");
  }

private:
  const LoadedModel &abi() const { return library->abi(); }
  const amp_tensor_info *find(const std::string &name) const {
    const amp_tensor_info *info = library->find(name);
    if (!info)
      throw py::key_error("the model has no tensor named '" + name + "'");
    return info;
  }
  std::shared_ptr<Library> library;
  amp_state *state = nullptr;
  std::optional<::amp::Stepper> stepper;
};

//===----------------------------------------------------------------------===//
// The per-step rules (lib/Host's Stepper), for the Trainer
//===----------------------------------------------------------------------===//

/// Overlapped steps (amp_train_step_begin/finish, ModelABI.h), without the
/// GIL.
void beginStep(::amp::Stepper &stepper) {
  if (!stepper.hasOverlappedSteps())
    throw AmpError("the library predates overlapped steps: compile it again");
  std::string error;
  bool begun;
  {
    py::gil_scoped_release release;
    begun = stepper.beginStep(error);
  }
  if (!begun)
    throw AmpError("the training step failed: " + error);
}

std::pair<float, bool> finishStep(::amp::Stepper &stepper) {
  if (!stepper.hasOverlappedSteps())
    throw AmpError("the library predates overlapped steps: compile it again");
  ::amp::Stepper::MicroBatch result;
  std::string error;
  bool finished;
  {
    py::gil_scoped_release release;
    finished = stepper.finishStep(result, nullptr, error);
  }
  if (!finished)
    throw AmpError("the training step failed: " + error);
  return {result.loss, result.skipped != 0};
}

void setLearningRate(::amp::Stepper &stepper, double lr) {
  if (!stepper.learningRate())
    throw AmpError("the compiled step has no learning rate");
  std::string error;
  if (!stepper.setLearningRate(lr, error))
    throw AmpError("cannot set 'lr': " + error);
}

double readLearningRate(const ::amp::Stepper &stepper) {
  std::optional<double> lr = stepper.readLearningRate();
  if (!lr)
    throw py::key_error("the model has no tensor named 'lr'");
  return *lr;
}

void setAccumulation(::amp::Stepper &stepper, int64_t count) {
  std::string error;
  switch (stepper.setAccumulation(count, error)) {
  case ::amp::Stepper::AccumulationResult::Set:
    return;
  case ::amp::Stepper::AccumulationResult::NotCompiled:
    throw AmpError("the step was compiled without gradient accumulation; "
                   "pass accumulate=N to amp.compile");
  case ::amp::Stepper::AccumulationResult::Failed:
    break;
  }
  throw AmpError("cannot set 'accumulate': " + error);
}

std::vector<float> lossScales(const ::amp::Stepper &stepper) {
  llvm::SmallVector<float> scales;
  if (!stepper.lossScales(scales))
    throw AmpError("cannot read the loss scales");
  return std::vector<float>(scales.begin(), scales.end());
}

void bindStepper(py::module_ &m) {
  py::class_<::amp::Stepper>(m, "Stepper")
      .def_property_readonly("completed_update",
                             &::amp::Stepper::completedUpdate)
      .def("begin_step", &beginStep)
      .def("finish_step", &finishStep)
      .def_property_readonly("lr", &readLearningRate)
      .def("set_lr", &setLearningRate, py::arg("lr"))
      .def_property_readonly("accumulates", &::amp::Stepper::accumulates)
      .def_property_readonly("accumulation", &::amp::Stepper::accumulation)
      .def("set_accumulation", &setAccumulation, py::arg("count"))
      .def("loss_scales", &lossScales);
}

//===----------------------------------------------------------------------===//
// amp.debug: the first op that made inf or NaN (docs/Debugging.md)
//===----------------------------------------------------------------------===//

/// lib/Host's NonfiniteFinder on one State (which it keeps
/// alive); `build` is a Python callable that compiles the instrumented
/// library and returns its path.
class NonfiniteFinderBinding {
public:
  NonfiniteFinderBinding(py::object state, const std::string &mode,
                         py::function build)
      : stateObject(std::move(state)), build(std::move(build)) {
    std::optional<mlir::amp::NonfiniteMode> parsed =
        mlir::amp::parseNonfiniteMode(mode);
    if (!parsed)
      throw py::value_error("find_nonfinite=" + mode +
                            " is not one of first, every");
    finder = std::make_unique<mlir::amp::NonfiniteFinder>(
        this->state().trained(), *parsed,
        [this](std::string &path, std::string &error) {
          return buildInstrumented(path, error);
        });
  }

  bool isActive() const { return finder->isActive(); }

  void beforeStep() {
    std::string error;
    if (!finder->beforeStep(state().handle(), error))
      throw AmpError("find_nonfinite: " + error);
  }

  /// None, or the report as (its JSON object's text, amp-run's text).
  py::object afterStep(int64_t step, float loss) {
    std::optional<mlir::amp::NonfiniteReport> report;
    std::string error;
    bool ok = finder->afterStep(step, state().handle(), loss, report, error);
    if (std::exception_ptr raised = std::exchange(buildError, nullptr))
      std::rethrow_exception(raised);
    if (!ok)
      throw AmpError("find_nonfinite: " + error);
    if (!report)
      return py::none();
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::amp::printNonfiniteReport(os, *report);
    os.flush();
    return py::make_tuple(mlir::amp::nonfiniteReportJSON(*report), text);
  }

private:
  State &state() const { return stateObject.cast<State &>(); }

  /// Calls `build`; an exception it raises (amp.CompileError) is raised
  /// again by afterStep, past the finder's C++ frames.
  bool buildInstrumented(std::string &path, std::string &error) {
    try {
      path = build().cast<std::string>();
      return true;
    } catch (...) {
      buildError = std::current_exception();
      error = "the instrumented library could not be built";
      return false;
    }
  }

  py::object stateObject;
  py::function build;
  std::exception_ptr buildError;
  std::unique_ptr<mlir::amp::NonfiniteFinder> finder;
};

void bindNonfiniteFinder(py::module_ &m) {
  py::class_<NonfiniteFinderBinding>(m, "NonfiniteFinder")
      .def(py::init<py::object, const std::string &, py::function>(),
           py::arg("state"), py::arg("mode"), py::arg("build"))
      .def_property_readonly("active", &NonfiniteFinderBinding::isActive)
      .def("before_step", &NonfiniteFinderBinding::beforeStep)
      .def("after_step", &NonfiniteFinderBinding::afterStep, py::arg("step"),
           py::arg("loss"));
}
/// The training pipeline's options (TrainingPipelineOptions, where each is
/// written once): for each, its name, kind (flag, integer, number, text or
/// choice), default (a bool, int, float or str), choices and description.
/// The amp package makes its keywords and their checks from these.
py::list describePipelineOptions() {
  using Kind = mlir::amp::TrainingOptionBase::Kind;
  mlir::amp::TrainingPipelineOptions options;
  py::list described;
  for (mlir::amp::TrainingOptionBase *option : options.getOptionList()) {
    std::string text = option->getValueText();
    py::object value;
    const char *kind = "text";
    switch (option->getKind()) {
    case Kind::Flag:
      kind = "flag";
      value = py::bool_(text == "true");
      break;
    case Kind::Integer:
      kind = "integer";
      value = py::int_(std::stoll(text));
      break;
    case Kind::Number:
      kind = "number";
      value = py::float_(std::stod(text));
      break;
    case Kind::Choice:
      kind = "choice";
      value = py::str(text);
      break;
    case Kind::Text:
      value = py::str(text);
      break;
    }
    py::list choices;
    for (llvm::StringRef choice : option->getChoices())
      choices.append(py::str(choice.str()));
    py::dict entry;
    entry["name"] = option->getOption().ArgStr.str();
    entry["kind"] = kind;
    entry["default"] = value;
    entry["choices"] = py::tuple(choices);
    entry["help"] = option->getOption().HelpStr.str();
    described.append(entry);
  }
  return described;
}
} // namespace

PYBIND11_MODULE(_amp, m) {
  m.doc() = "amp's compiler and model runtime (used by the amp package)";
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  py::register_exception<AmpError>(m, "AmpError", PyExc_RuntimeError);
  m.def("has_onnx_import", &mlir::amp::hasONNXImport);
  m.def("pipeline_options", &describePipelineOptions,
        "The training pipeline's options: a list of dicts with name, kind "
        "(flag, integer, number, text, choice), default, choices and help, "
        "as amp-compile's flags have them.");
  m.def("compile_onnx", &compileONNX, py::arg("onnx"), py::arg("options"),
        py::arg("input_shapes"), py::arg("output"), py::arg("prefix"),
        py::arg("cxx"), py::arg("instrument_nonfinite") = false, py::kw_only(),
        py::arg("trainable") = py::none(),
        py::arg("padding_indices") = py::none(),
        py::call_guard<py::gil_scoped_release>(),
        "Compile a serialized ONNX model into a library at `output`; "
        "`trainable` (initializer names, None: every float initializer) "
        "says what trains, `padding_indices` (name -> row) the embedding "
        "rows that get no gradient. Returns the warnings, raises AmpError "
        "with the diagnostics.");
  m.def(
      "compile_mlir",
      [](const std::string &text, const py::dict &initialValues,
         const std::string &options, const std::string &output,
         const std::string &prefix, const std::string &cxx,
         bool instrumentNonfinite) {
        // Released (with the GIL) after the compilation.
        NamedBuffers values = requestInitialValues(initialValues);
        py::gil_scoped_release release;
        return compileMLIR(text, values,
                           {options, output, prefix, cxx, instrumentNonfinite});
      },
      py::arg("text"), py::arg("initial_values"), py::arg("options"),
      py::arg("output"), py::arg("prefix"), py::arg("cxx"),
      py::arg("instrument_nonfinite") = false,
      "Compile an amp dialect module (MLIR text) into a library at "
      "`output`, with `initial_values` (amp.name -> bytes or a buffer of the "
      "tensor's dtype and shape) for every parameter and buffer; returns the "
      "warnings, raises AmpError with the diagnostics.");
  py::class_<Library, std::shared_ptr<Library>>(m, "Library")
      .def(py::init<const std::string &>())
      .def_property_readonly("tensors",
                             [](const Library &library) {
                               py::list tensors;
                               const LoadedModel &abi = library.abi();
                               for (int32_t i = 0; i < abi.numTensors(); ++i)
                                 tensors.append(
                                     describeTensor(*abi.tensor(i), abi));
                               return tensors;
                             })
      .def_property_readonly("has_eval", [](const Library &library) {
        return library.abi().hasEval() != 0;
      });
  py::class_<State>(m, "State")
      .def(py::init<std::shared_ptr<Library>, uint64_t>())
      .def("tensor",
           [](py::object self, const std::string &name) {
             return self.cast<State &>().tensor(self, name);
           })
      .def("set", &State::set, py::arg("name"), py::arg("value"))
      .def("train_step", &State::trainStep)
      .def_property_readonly("stepper", &State::getStepper,
                             py::return_value_policy::reference_internal)
      .def("eval", &State::eval)
      .def("save", &State::save)
      .def("load", &State::load);
  bindTensor(m);
  bindNonfiniteFinder(m);
  bindStepper(m);
}
