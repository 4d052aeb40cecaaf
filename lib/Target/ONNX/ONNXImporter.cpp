//===- ONNXImporter.cpp - ONNX models to the amp dialect ------------------===//
//
// Walks an ONNX graph in its (topological) node order and builds one
// `func.func` in the amp dialect. Every ONNX value maps to an Entry: a
// run-time SSA value, a tensor known at import time (HostTensor), or an
// initializer that becomes either a parameter argument (floating point) or a
// host tensor (integers, and floats read as attributes). Each node is
// imported by the handler the op table (OpTable.h) holds for its op type at
// the model's opset; the handlers live in files by op group
// (ElementwiseOps.cpp, ShapeOps.cpp, ...). Ops whose inputs are all known at
// import time are folded on the host, which removes the shape arithmetic
// (Shape, Gather, Unsqueeze, Concat, Slice, ...) that exporters emit;
// everything else becomes amp ops with static types computed here, with ONNX
// broadcasting made explicit (amp.broadcast).
//
// This file holds the graph walk: model checks, graph inputs and
// initializers, the dispatch, graph outputs and the function.
//
// Errors name the node (its name, or its index when unnamed) and op type.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ONNX/ONNXImporter.h"

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"
#include <google/protobuf/io/coded_stream.h>

#include <limits>
#include <memory>
#include <numeric>
#include <unistd.h>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

Importer::Importer(MLIRContext *context, const onnx::ModelProto &model,
                   StringRef modelPath, const ONNXImportOptions &options)
    : context(context), options(options), builder(context),
      fileLoc(FileLineColLoc::get(
          context, modelPath.empty() ? "<onnx buffer>" : modelPath, 0, 0)),
      loc(fileLoc), model(model), graph(model.graph()),
      modelPath(modelPath.str()) {
  if (options.trainable)
    for (const std::string &name : *options.trainable)
      trainableNames.insert(name);
  if (!modelPath.empty()) {
    llvm::SmallString<256> directory(modelPath);
    llvm::sys::path::remove_filename(directory);
    if (directory.empty())
      directory = ".";
    source.modelDirectory = std::string(directory);
  }
}

//===----------------------------------------------------------------------===//
// Model checks, inputs
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkModel() {
  if (!model.has_graph()) {
    modelError() << "the ONNX model has no graph";
    return failure();
  }
  bool found = false;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") {
      opset = id.version();
      found = true;
    }
  }
  if (!found) {
    modelError() << "the ONNX model imports no opset of the default domain "
                    "(ai.onnx); amp-translate supports opsets "
                 << kMinOpset << " to " << kMaxOpset;
    return failure();
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    modelError() << "the ONNX model uses opset " << opset
                 << " of the default domain (ai.onnx); amp-translate "
                    "supports opsets "
                 << kMinOpset << " to " << kMaxOpset
                 << " (re-export with opset_version between " << kMinOpset
                 << " and " << kMaxOpset << ")";
    return failure();
  }
  if (graph.sparse_initializer_size() > 0) {
    modelError() << "the graph has sparse initializers ('"
                 << graph.sparse_initializer(0).values().name()
                 << "'), which the importer does not support";
    return failure();
  }
  if (graph.output_size() == 0) {
    modelError() << "the graph has no outputs";
    return failure();
  }
  return success();
}

LogicalResult Importer::importInputs() {
  for (const auto &entry : options.inputShapes) {
    StringRef name = entry.getKey();
    bool known = llvm::any_of(
        graph.input(), [&](const auto &input) { return input.name() == name; });
    if (!known) {
      modelError() << inputShapeOption() << " names '" << name
                   << "', which is not a graph input";
      return failure();
    }
  }
  // Initializers first: an input that also has an initializer (IR < 4, or
  // keep_initializers_as_inputs) is a parameter with a default value.
  for (auto [index, init] : llvm::enumerate(graph.initializer())) {
    if (init.name().empty()) {
      modelError() << "initializer #" << index << " has no name";
      return failure();
    }
    Entry e;
    e.initializer = &init;
    e.initializerIndex = static_cast<int64_t>(index);
    if (!entries.try_emplace(init.name(), std::move(e)).second) {
      modelError() << "initializer '" << init.name() << "' is defined twice";
      return failure();
    }
  }
  int64_t inputIndex = 0;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto existing = entries.find(input.name());
    if (existing != entries.end() && existing->second.initializer) {
      if (failed(
              checkDeclaredInitializer(input, *existing->second.initializer)))
        return failure();
      continue;
    }
    const std::string &name = input.name();
    if (name.empty()) {
      modelError() << "graph input #" << inputIndex << " has no name";
      return failure();
    }
    if (!input.type().has_tensor_type()) {
      modelError() << "graph input '" << name
                   << "' is not a tensor (sequences, maps and optionals are "
                      "not supported)";
      return failure();
    }
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Type element = runtimeElementType(tensor.elem_type(), context);
    if (!element) {
      modelError() << "graph input '" << name << "' has element type "
                   << dtypeName(tensor.elem_type())
                   << "; amp supports FLOAT, FLOAT16, BFLOAT16, INT64, "
                      "INT32 and BOOL inputs";
      return failure();
    }
    auto override = options.inputShapes.find(name);
    Shape shape;
    if (!tensor.has_shape() && override == options.inputShapes.end()) {
      modelError() << "graph input '" << name << "' has no shape; give it one "
                   << inputShapeAdvice(name);
      return failure();
    }
    if (tensor.has_shape()) {
      if (tensor.shape().dim_size() > kMaxRank) {
        modelError() << "graph input '" << name << "' has rank "
                     << tensor.shape().dim_size() << ", more than " << kMaxRank;
        return failure();
      }
      for (auto [d, dim] : llvm::enumerate(tensor.shape().dim())) {
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          shape.push_back(dim.dim_value());
          continue;
        }
        if (dim.has_dim_value()) {
          modelError() << "graph input '" << name << "' has dimension " << d
                       << " of size " << dim.dim_value()
                       << ", which is negative";
          return failure();
        }
        if (override == options.inputShapes.end()) {
          InFlightDiagnostic diag = modelError();
          diag << "graph input '" << name << "' has a dynamic dimension " << d;
          if (dim.has_dim_param())
            diag << " ('" << dim.dim_param() << "')";
          diag << " and amp needs static shapes; give it a size "
               << inputShapeAdvice(name);
          return failure();
        }
        shape.push_back(ShapedType::kDynamic);
      }
    }
    if (override != options.inputShapes.end()) {
      ArrayRef<int64_t> given = override->second;
      if (tensor.has_shape() && given.size() != shape.size()) {
        modelError() << inputShapeOption() << " for '" << name << "' has rank "
                     << given.size() << " but the input has rank "
                     << shape.size();
        return failure();
      }
      for (size_t d = 0; d < given.size(); ++d) {
        if (tensor.has_shape() && shape[d] != ShapedType::kDynamic &&
            shape[d] != given[d]) {
          modelError() << inputShapeOption() << " for '" << name << "' gives "
                       << given[d] << " for dimension " << d
                       << ", which the model fixes to " << shape[d];
          return failure();
        }
      }
      shape.assign(given.begin(), given.end());
    }
    if (!numElements(shape)) {
      modelError() << "graph input '" << name << "' has an invalid shape "
                   << formatShape(shape);
      return failure();
    }
    if (*numElements(shape) == 0) {
      modelError() << "graph input '" << name << "' has shape "
                   << formatShape(shape)
                   << ", with no elements; amp does not support empty "
                      "tensors";
      return failure();
    }
    Value arg = body->addArgument(tensorType(shape, element), fileLoc);
    args.push_back({ArgKind::Input, name, inputIndex++, arg});
    Entry e;
    e.value = arg;
    if (!entries.try_emplace(name, std::move(e)).second) {
      modelError() << "graph input '" << name << "' is defined twice";
      return failure();
    }
  }
  return success();
}

/// A graph input that also has an initializer (keep_initializers_as_inputs)
/// takes the initializer's type; a declaration that disagrees is an error
/// rather than silently ignored.
LogicalResult
Importer::checkDeclaredInitializer(const onnx::ValueInfoProto &input,
                                   const onnx::TensorProto &init) {
  if (!input.type().has_tensor_type())
    return success();
  const onnx::TypeProto::Tensor &declared = input.type().tensor_type();
  bool mismatch = declared.elem_type() != kUndefined &&
                  declared.elem_type() != init.data_type();
  if (declared.has_shape()) {
    mismatch |= declared.shape().dim_size() != init.dims_size();
    for (int d = 0; !mismatch && d < declared.shape().dim_size(); ++d)
      mismatch = declared.shape().dim(d).has_dim_value() &&
                 declared.shape().dim(d).dim_value() != init.dims(d);
  }
  if (!mismatch)
    return success();
  Shape declaredShape;
  for (const auto &dim : declared.shape().dim())
    declaredShape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  modelError() << "graph input '" << input.name() << "' is declared as "
               << dtypeName(declared.elem_type()) << " "
               << formatShape(declaredShape) << " but its initializer is "
               << dtypeName(init.data_type()) << " "
               << formatShape(SmallVector<int64_t>(init.dims().begin(),
                                                   init.dims().end()));
  return failure();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::importNode() {
  const std::string &op = node->op_type();
  if (!node->domain().empty() && node->domain() != "ai.onnx") {
    error() << "op '" << op << "' of domain '" << node->domain()
            << "' is not supported (only the default ONNX domain is)";
    return failure();
  }
  attributes.clear();
  for (const onnx::AttributeProto &a : node->attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH ||
        a.type() == onnx::AttributeProto::GRAPHS) {
      error() << "ops with subgraphs (attribute '" << a.name()
              << "') are not supported";
      return failure();
    }
    if (!attributes.try_emplace(a.name(), &a).second) {
      error() << "attribute '" << a.name() << "' is given twice";
      return failure();
    }
  }
  if (const OpHandler *handler = OpTable::defaultDomain().lookup(op, opset))
    return (*handler)(*this);
  error() << "op type '" << op << "' (opset " << opset
          << ") is not supported by the amp importer (docs/ONNX.md lists the "
             "supported ops)";
  return failure();
}

//===----------------------------------------------------------------------===//
// Outputs and the function
//===----------------------------------------------------------------------===//

LogicalResult
Importer::importOutputs(SmallVectorImpl<Value> &results,
                        SmallVectorImpl<DictionaryAttr> &resultAttrs) {
  node = nullptr;
  loc = fileLoc;
  std::optional<size_t> lossIndex;
  SmallVector<size_t> lossCandidates;
  llvm::StringSet<> outputNames;
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    if (!outputNames.insert(output.name()).second) {
      modelError() << "graph output '" << output.name() << "' is listed twice";
      return failure();
    }
    auto it = entries.find(output.name());
    if (it == entries.end()) {
      modelError() << "graph output '" << output.name()
                   << "' is not produced by any node, input or initializer";
      return failure();
    }
    Entry &e = it->second;
    Value v;
    if (e.uniform) {
      modelError() << "graph output '" << output.name()
                   << "' is uniform random samples (RandomUniform), which "
                      "amp does not draw (it draws Bernoulli masks)";
      return failure();
    }
    if (e.value) {
      v = e.value;
    } else if (e.initializer && isFloatDType(e.initializer->data_type())) {
      // valueOf needs a node for its diagnostics only on failure paths that
      // cannot happen for a valid float initializer.
      const onnx::TensorProto &init = *e.initializer;
      Type element = runtimeElementType(init.data_type(), context);
      Shape shape;
      std::string message;
      if (!element || !readTensorShape(init, shape, message)) {
        modelError() << "graph output '" << output.name()
                     << "' is an initializer of an unsupported type or shape";
        return failure();
      }
      v = body->addArgument(tensorType(shape, element), fileLoc);
      args.push_back(
          {ArgKind::Initializer, init.name(), e.initializerIndex, v});
      e.value = v;
    } else {
      if (!e.host) {
        HostTensor t;
        std::string message;
        if (!decodeTensor(*e.initializer, source, t, message,
                          options.maxFoldedElements)) {
          modelError() << "initializer '" << e.initializer->name() << "' "
                       << message;
          return failure();
        }
        e.host = std::make_shared<HostTensor>(std::move(t));
      }
      builder.setInsertionPointToEnd(body.get());
      Type element = runtimeElementType(e.host->dtype, context);
      if (!element) {
        modelError() << "graph output '" << output.name()
                     << "' is a constant of type " << dtypeName(e.host->dtype)
                     << ", which amp cannot represent";
        return failure();
      }
      v = constant(*e.host, tensorType(e.host->shape, element));
    }
    // Check the declared type where it is static.
    if (output.type().has_tensor_type()) {
      const onnx::TypeProto::Tensor &declared = output.type().tensor_type();
      ArrayRef<int64_t> shape = shapeOf(v);
      if (declared.has_shape()) {
        bool mismatch =
            declared.shape().dim_size() != static_cast<int>(shape.size());
        for (int d = 0; !mismatch && d < declared.shape().dim_size(); ++d)
          mismatch = declared.shape().dim(d).has_dim_value() &&
                     declared.shape().dim(d).dim_value() != shape[d];
        if (mismatch) {
          Shape declaredShape;
          for (const auto &dim : declared.shape().dim())
            declaredShape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
          modelError() << "graph output '" << output.name()
                       << "' is declared with shape "
                       << formatShape(declaredShape)
                       << " but the importer computed " << formatShape(shape);
          return failure();
        }
      }
      if (declared.elem_type() != kUndefined &&
          declared.elem_type() != dtypeOf(elementOf(v))) {
        modelError() << "graph output '" << output.name() << "' is declared as "
                     << dtypeName(declared.elem_type()) << " but computes "
                     << typeName(elementOf(v));
        return failure();
      }
    }
    results.push_back(v);
    bool scalarF32 = shapeOf(v).empty() && elementOf(v).isF32();
    if (options.lossOutput.empty() && scalarF32 &&
        StringRef(output.name()).contains_insensitive("loss"))
      lossCandidates.push_back(index);
    if (!options.lossOutput.empty() && options.lossOutput == output.name()) {
      if (!scalarF32) {
        modelError() << "--loss-output '" << output.name()
                     << "' is not a 0-d f32 tensor";
        return failure();
      }
      lossIndex = index;
    }
  }
  if (!options.lossOutput.empty() && options.lossOutput != "-" && !lossIndex) {
    modelError() << "--loss-output '" << options.lossOutput
                 << "' is not a graph output";
    return failure();
  }
  if (lossCandidates.size() == 1)
    lossIndex = lossCandidates.front();
  Builder b(context);
  for (auto [index, output] : llvm::enumerate(graph.output())) {
    Role role = lossIndex && *lossIndex == index ? Role::Loss : Role::Output;
    resultAttrs.push_back(
        b.getDictionaryAttr({b.getNamedAttr(AMPDialect::kRoleAttrName,
                                            RoleAttr::get(context, role)),
                             b.getNamedAttr(AMPDialect::kNameAttrName,
                                            b.getStringAttr(output.name()))}));
  }
  // Updated running statistics are returned as buffers, after the outputs.
  for (auto &[name, update] : bufferUpdates) {
    results.push_back(update);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(AMPDialect::kRoleAttrName,
                        RoleAttr::get(context, Role::Buffer)),
         b.getNamedAttr(AMPDialect::kNameAttrName, b.getStringAttr(name))}));
  }
  return success();
}

/// Running statistics are buffers whatever the caller says (the forward
/// updates them); with ONNXImportOptions::trainable, so is every initializer
/// it does not name.
Role Importer::argumentRole(const ArgInfo &info) const {
  if (info.kind != ArgKind::Initializer)
    return Role::Input;
  if (bufferNames.contains(info.name))
    return Role::Buffer;
  if (options.trainable && !trainableNames.contains(info.name))
    return Role::Buffer;
  return Role::Parameter;
}

/// A padding index the caller gave for a floating-point initializer must
/// reach an amp.gather: dropping it would train the padding row silently.
/// Names that are no initializer are ignored, as for `trainable` (the
/// caller names tables that the exporter may have dropped as unused).
LogicalResult Importer::checkPaddedTables() {
  for (const auto &entry : options.paddingIndices) {
    StringRef name = entry.getKey();
    auto it = entries.find(name);
    if (it == entries.end() || !it->second.initializer ||
        !isFloatDType(it->second.initializer->data_type()) ||
        paddedTables.contains(name))
      continue;
    modelError() << "initializer '" << name << "' has a padding index ("
                 << entry.getValue()
                 << "), but no Gather reads it directly as its data; amp "
                    "cannot keep that row from training";
    return failure();
  }
  return success();
}

/// Arguments are found by name (amp.name, checkpoints, amp-run --input):
/// a Dropout seed must not take the name of a graph input, an initializer
/// or another seed.
LogicalResult Importer::checkArgumentNames() {
  llvm::StringSet<> names;
  for (const ArgInfo &info : args) {
    if (names.insert(info.name).second)
      continue;
    modelError() << "two arguments of the imported function would be named '"
                 << info.name
                 << "' (Dropout seeds are named after their node, NODE.seed, "
                    "and must not take the name of a graph input, an "
                    "initializer or another seed)";
    return failure();
  }
  return success();
}

/// Reads the contents of every initializer argument, in argument order.
/// Nothing in the IR changes, so a bad initializer leaves the importer's
/// blocks as they are and they are destroyed together.
FailureOr<std::vector<ONNXInitialValue>>
Importer::readInitialValues(ArrayRef<size_t> order) {
  // External data lets a small model name the same bytes many times: refuse
  // to read more than the machine holds rather than be killed for it.
  uint64_t bytes = 0;
  for (const ArgInfo &info : args)
    if (info.kind == ArgKind::Initializer) {
      auto type = cast<RankedTensorType>(info.arg.getType());
      bytes += static_cast<uint64_t>(type.getNumElements()) *
               type.getElementTypeBitWidth() / 8;
    }
  uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                    static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > memory) {
    modelError() << "the initial values of the parameters and buffers need "
                 << bytes << " bytes, more than this machine's memory ("
                 << memory << " bytes)";
    return failure();
  }
  std::vector<ONNXInitialValue> initialValues;
  for (size_t i : order) {
    const ArgInfo &info = args[i];
    if (info.kind != ArgKind::Initializer)
      continue;
    ONNXInitialValue initial;
    initial.name = info.name;
    initial.role = argumentRole(info);
    initial.type = cast<RankedTensorType>(info.arg.getType());
    std::string message;
    if (!decodeFloatBytes(graph.initializer(static_cast<int>(info.order)),
                          source, initial.data, message)) {
      modelError() << "initializer '" << info.name << "' " << message;
      return failure();
    }
    initialValues.push_back(std::move(initial));
  }
  return initialValues;
}

FailureOr<ONNXImportResult>
Importer::finish(ArrayRef<Value> results,
                 ArrayRef<DictionaryAttr> resultAttrs) {
  // Arguments: graph inputs, dropout seeds, then initializers in their
  // graph order.
  std::vector<size_t> order(args.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank = [](ArgKind kind) {
    return kind == ArgKind::Input ? 0 : kind == ArgKind::Seed ? 1 : 2;
  };
  // (kind, order) is unique per argument, so a plain sort is stable.
  llvm::sort(order, [&](size_t x, size_t y) {
    if (rank(args[x].kind) != rank(args[y].kind))
      return rank(args[x].kind) < rank(args[y].kind);
    return args[x].order < args[y].order;
  });
  // Everything that can fail happens before the body's values move to the
  // function: once an argument is replaced, the ops of `body` use values of
  // the module, and the two must not be destroyed separately.
  if (failed(checkArgumentNames()))
    return failure();
  FailureOr<std::vector<ONNXInitialValue>> initialValues =
      readInitialValues(order);
  if (failed(initialValues))
    return failure();

  Builder b(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module->getBody());
  SmallVector<Type> argTypes, resultTypes;
  for (size_t i : order)
    argTypes.push_back(args[i].arg.getType());
  for (Value v : results)
    resultTypes.push_back(v.getType());
  auto func =
      func::FuncOp::create(moduleBuilder, fileLoc, options.functionName,
                           FunctionType::get(context, argTypes, resultTypes));
  func->setAttr(AMPDialect::kGraphAttrName,
                GraphKindAttr::get(context, GraphKind::Forward));

  Block *entry = new Block();
  func.getBody().push_back(entry);
  DenseMap<Value, Value> replaced;
  for (auto [position, i] : llvm::enumerate(order)) {
    const ArgInfo &info = args[i];
    BlockArgument arg = entry->addArgument(info.arg.getType(), fileLoc);
    Value old = info.arg;
    old.replaceAllUsesWith(arg);
    replaced[info.arg] = arg;
    func.setArgAttrs(
        position,
        b.getDictionaryAttr(
            {b.getNamedAttr(AMPDialect::kRoleAttrName,
                            RoleAttr::get(context, argumentRole(info))),
             b.getNamedAttr(AMPDialect::kNameAttrName,
                            b.getStringAttr(info.name))}));
  }
  // Move the ops, which now use the function's arguments, into it.
  entry->getOperations().splice(entry->end(), body->getOperations());
  OpBuilder returnBuilder = OpBuilder::atBlockEnd(entry);
  SmallVector<Value> returned;
  for (Value v : results)
    returned.push_back(replaced.lookup(v) ? replaced.lookup(v) : v);
  func::ReturnOp::create(returnBuilder, fileLoc, returned);
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);

  ONNXImportResult result;
  result.module = std::move(module);
  result.functionName = options.functionName;
  result.initialValues = std::move(*initialValues);
  return result;
}

FailureOr<ONNXImportResult> Importer::run() {
  if (failed(checkModel()) || failed(importInputs()))
    return failure();
  for (const onnx::NodeProto &n : graph.node()) {
    for (const std::string &input : n.input())
      if (!input.empty())
        ++useCounts[input];
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    ++useCounts[output.name()];

  builder.setInsertionPointToEnd(body.get());
  for (auto [index, n] : llvm::enumerate(graph.node())) {
    node = &n;
    nodeIndex = static_cast<int64_t>(index);
    loc = NameLoc::get(
        StringAttr::get(context, n.name().empty()
                                     ? n.op_type() + "#" + std::to_string(index)
                                     : n.name()),
        fileLoc);
    if (failed(importNode()))
      return failure();
  }
  node = nullptr;
  loc = fileLoc;
  if (failed(checkPaddedTables()))
    return failure();
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  if (failed(importOutputs(results, resultAttrs)))
    return failure();
  return finish(results, resultAttrs);
}

namespace {

/// amp has no empty tensors: a parameter or a node result with a zero
/// dimension (an empty initializer, a Slice or Split to nothing) is
/// reported at its node instead of failing later in the pipeline.
LogicalResult checkNoEmptyTensors(ModuleOp module) {
  auto isEmpty = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getNumElements() == 0;
  };
  WalkResult walk = module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isEmpty(result.getType())) {
        emitError(op->getLoc())
            << "a value of type " << result.getType()
            << " has no elements; amp does not support empty tensors";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isEmpty(type)) {
        emitError(func.getLoc())
            << "argument '"
            << func.getArgAttrOfType<StringAttr>(index,
                                                 AMPDialect::kNameAttrName)
                   .getValue()
            << "' of type " << type
            << " has no elements; amp does not support empty tensors";
        return failure();
      }
  return success();
}

/// Parses a ModelProto without protobuf's default 64 MiB limit (models up
/// to 2 GiB; larger ones must use external data).
bool parseModel(StringRef bytes, onnx::ModelProto &model) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return false;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  stream.SetRecursionLimit(64);
  return model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

FailureOr<ONNXImportResult>
mlir::amp::importONNXBuffer(StringRef bytes, StringRef modelPath,
                            MLIRContext *context,
                            const ONNXImportOptions &options) {
  context->loadDialect<AMPDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(
      context, modelPath.empty() ? "<onnx buffer>" : modelPath, 0, 0);
  if (bytes.empty()) {
    emitError(fileLoc) << "the ONNX file is empty";
    return failure();
  }
  onnx::ModelProto model;
  if (!parseModel(bytes, model)) {
    emitError(fileLoc)
        << "cannot parse the file as an ONNX model (a serialized "
           "onnx.ModelProto): it is truncated, corrupt or not ONNX, or it "
           "nests messages (subgraphs, attributes) deeper than 64 levels";
    return failure();
  }
  if (options.functionName.empty()) {
    emitError(fileLoc) << "the function name must not be empty";
    return failure();
  }
  Importer importer(context, model, modelPath, options);
  FailureOr<ONNXImportResult> result = importer.run();
  if (failed(result))
    return failure();
  if (failed(checkNoEmptyTensors(*result->module)))
    return failure();
  if (failed(mlir::verify(*result->module))) {
    emitError(fileLoc) << "internal error: the imported module does not "
                          "verify (please report this model)";
    return failure();
  }
  if (options.raise) {
    if (failed(raiseONNXIdioms(*result->module)) ||
        failed(mlir::verify(*result->module))) {
      emitError(fileLoc) << "internal error: raising the imported module "
                            "failed (please report this model)";
      return failure();
    }
  }
  return result;
}

/// Reads the model file. Protobuf parses at most 2 GiB, so no more is read:
/// a larger file, or an endless one (/dev/zero), is refused rather than
/// exhausting memory. Regular files are mapped, others read.
static std::unique_ptr<llvm::MemoryBuffer> readModelFile(StringRef path,
                                                         Location loc) {
  constexpr size_t kLimit = std::numeric_limits<int>::max();
  auto tooLarge = [&] {
    emitError(loc) << "'" << path
                   << "' is larger than 2 GiB, the most protobuf can parse "
                      "(larger models keep their weights in external data)";
    return nullptr;
  };
  auto cannotRead = [&](const std::string &reason) {
    emitError(loc) << "cannot read '" << path << "': " << reason;
    return nullptr;
  };
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return cannotRead(ec.message());
  if (llvm::sys::fs::is_regular_file(status) ||
      llvm::sys::fs::is_directory(status)) {
    if (status.getSize() > kLimit)
      return tooLarge();
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return cannotRead(buffer.getError().message());
    return std::move(*buffer);
  }
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return cannotRead(llvm::toString(file.takeError()));
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(*file); });
  SmallVector<char, 0> bytes;
  std::vector<char> chunk(1 << 20);
  while (bytes.size() <= kLimit) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(*file, chunk);
    if (!read)
      return cannotRead(llvm::toString(read.takeError()));
    if (*read == 0)
      return llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(bytes.data(), bytes.size()), path);
    bytes.append(chunk.begin(), chunk.begin() + *read);
  }
  return tooLarge();
}

FailureOr<ONNXImportResult>
mlir::amp::importONNXFile(StringRef path, MLIRContext *context,
                          const ONNXImportOptions &options) {
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readModelFile(path, FileLineColLoc::get(context, path, 0, 0));
  if (!buffer)
    return failure();
  return importONNXBuffer(buffer->getBuffer(), path, context, options);
}
