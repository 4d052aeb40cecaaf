//===- ElementwiseOps.cpp - ONNX element-wise ops -------------------------===//
//
// Arithmetic with broadcasting, comparisons, logic, unary math, the hard
// activations, IsNaN/IsInf, Where, Clip and Cast. Inputs known at import
// time fold on the host.
//
// These folds stay an evaluator of their own rather than going through amp
// folders: what they evaluate is the integer shape arithmetic of exporters
// (INT64 Add/Mul/Div/Equal/Where/Cast on Shape outputs), and amp's
// arithmetic, comparison and unary ops compute on f16/bf16/f32 tensors only
// (AMP_FloatTensor), so they cannot hold those values, and ONNX's integer
// semantics (truncating Div, wrap-around, Cast to any ONNX type) are not
// theirs to model.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

namespace {
/// Folds one comparison; a template so that doubles and integers share it.
template <typename T> bool compareValues(Compare kind, T l, T r) {
  switch (kind) {
  case Compare::EQ:
    return l == r;
  case Compare::GT:
    return l > r;
  case Compare::LT:
    return l < r;
  case Compare::GE:
    return l >= r;
  case Compare::LE:
    return l <= r;
  }
  return false;
}

} // namespace

Value Importer::materializedBinary(Arith kind, Value lhs, Value rhs) {
  Type type = lhs.getType();
  switch (kind) {
  case Arith::Add:
    return AddOp::create(builder, loc, type, lhs, rhs);
  case Arith::Sub:
    return SubOp::create(builder, loc, type, lhs, rhs);
  case Arith::Mul:
    return MulOp::create(builder, loc, type, lhs, rhs);
  case Arith::Div:
    return DivOp::create(builder, loc, type, lhs, rhs);
  case Arith::Pow:
    return PowOp::create(builder, loc, type, lhs, rhs);
  case Arith::Max:
    return MaximumOp::create(builder, loc, type, lhs, rhs);
  case Arith::Min:
    return MinimumOp::create(builder, loc, type, lhs, rhs);
  }
  llvm_unreachable("unknown arithmetic");
}

namespace {
/// Folds a binary op elementwise with broadcasting.
template <typename Fn>
HostTensor foldBinary(const HostTensor &a, const HostTensor &b,
                      ArrayRef<int64_t> shape, int32_t dtype, Fn fn) {
  HostTensor out = HostTensor::zeros(dtype, shape);
  Shape outStrides = stridesOf(shape), aStrides = stridesOf(a.shape),
        bStrides = stridesOf(b.shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    int64_t i = broadcastSourceIndex(k, shape, outStrides, a.shape, aStrides);
    int64_t j = broadcastSourceIndex(k, shape, outStrides, b.shape, bStrides);
    fn(out, k, a, i, b, j);
  }
  return out;
}

int64_t intPow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return base == 1 ? 1 : (base == -1 ? (exponent % 2 ? -1 : 1) : 0);
  int64_t result = 1;
  for (int64_t e = 0; e < exponent && e < 64; ++e)
    result = static_cast<int64_t>(static_cast<uint64_t>(result) *
                                  static_cast<uint64_t>(base));
  return result;
}
} // namespace

LogicalResult Importer::importArith(Arith kind) {
  if (failed(checkArity(2, 2)))
    return failure();
  if (uniformOf(0) || uniformOf(1))
    return importUniformArith(kind);
  FailureOr<const HostTensor *> a = hostOf(0), b = hostOf(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Shape> lhsShape = inputShape(0), rhsShape = inputShape(1);
  if (failed(lhsShape) || failed(rhsShape))
    return failure();
  FailureOr<Shape> shape = broadcastShapes({*lhsShape, *rhsShape});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (*a && *b) {
    const HostTensor &x = **a, &y = **b;
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isFloat = x.isFloat() || y.isFloat();
    if (kind != Arith::Pow && x.dtype != y.dtype) {
      error() << "operands have different element types (" << dtypeName(x.dtype)
              << " and " << dtypeName(y.dtype) << ")";
      return failure();
    }
    bool divByZero = false;
    HostTensor out = foldBinary(
        x, y, *shape, x.dtype,
        [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
            const HostTensor &q, int64_t j) {
          if (isFloat) {
            double l = p.getDouble(i), r = q.getDouble(j), v = 0;
            switch (kind) {
            case Arith::Add:
              v = l + r;
              break;
            case Arith::Sub:
              v = l - r;
              break;
            case Arith::Mul:
              v = l * r;
              break;
            case Arith::Div:
              v = l / r;
              break;
            case Arith::Pow:
              v = std::pow(l, r);
              break;
            case Arith::Max:
              v = std::isnan(l) || l > r ? l : r;
              break;
            case Arith::Min:
              v = std::isnan(l) || l < r ? l : r;
              break;
            }
            o.setDouble(k, v);
            return;
          }
          uint64_t l = static_cast<uint64_t>(p.getInt(i));
          uint64_t r = static_cast<uint64_t>(q.getInt(j));
          int64_t v = 0;
          switch (kind) {
          case Arith::Add:
            v = static_cast<int64_t>(l + r);
            break;
          case Arith::Sub:
            v = static_cast<int64_t>(l - r);
            break;
          case Arith::Mul:
            v = static_cast<int64_t>(l * r);
            break;
          case Arith::Div:
            if (r == 0 || (static_cast<int64_t>(l) ==
                               std::numeric_limits<int64_t>::min() &&
                           static_cast<int64_t>(r) == -1)) {
              divByZero = true;
              break;
            }
            v = static_cast<int64_t>(l) / static_cast<int64_t>(r);
            break;
          case Arith::Pow:
            v = intPow(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          case Arith::Max:
            v = std::max(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          case Arith::Min:
            v = std::min(static_cast<int64_t>(l), static_cast<int64_t>(r));
            break;
          }
          o.setInt(k, v);
        });
    if (divByZero) {
      error() << "integer division by zero (or overflow) while folding";
      return failure();
    }
    return setHost(0, std::move(out));
  }
  // At least one operand is computed at run time: its element type is the
  // op's (ONNX requires both to agree; Pow's exponent may differ and is
  // then converted when known).
  Type element;
  if (!*a) {
    FailureOr<Value> v = value(0);
    if (failed(v))
      return failure();
    element = elementOf(*v);
  } else {
    FailureOr<Value> v = value(1);
    if (failed(v))
      return failure();
    element = elementOf(*v);
  }
  if (!isa<FloatType>(element)) {
    error() << "arithmetic on " << typeName(element)
            << " tensors computed at run time is not supported (amp's "
               "arithmetic ops take f32, f16 and bf16; only constants are "
               "folded)";
    return failure();
  }
  if (!*a && !*b && kind != Arith::Pow) {
    FailureOr<Type> otherType = runtimeElement(1);
    if (failed(otherType))
      return failure();
    Type other = *otherType;
    if (other != element) {
      error() << "operands have different element types (" << typeName(element)
              << " and " << typeName(other) << ")";
      return failure();
    }
  }
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(element, *shape);
  if (failed(operands))
    return failure();
  return setValue(0,
                  materializedBinary(kind, operands->first, operands->second));
}

LogicalResult Importer::importVariadic(Arith kind) {
  if (failed(checkArity(1, ~0u)))
    return failure();
  if (numInputs() == 1)
    return importIdentity();
  // Max/Min over several inputs: fold pairwise through a synthetic node
  // would need names; instead combine run-time values directly.
  SmallVector<Shape> shapes;
  bool allKnown;
  if (failed(inputShapes(numInputs(), shapes, allKnown)))
    return failure();
  if (numInputs() == 2)
    return importArith(kind);
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    HostTensor acc = **hostOf(0);
    for (unsigned i = 1; i < numInputs(); ++i) {
      const HostTensor &next = **hostOf(i);
      FailureOr<Shape> s = broadcastShapes({acc.shape, next.shape});
      if (failed(s) || failed(checkFoldSize(*s)))
        return failure();
      acc = foldBinary(acc, next, *s, acc.dtype,
                       [&](HostTensor &o, int64_t k, const HostTensor &p,
                           int64_t x, const HostTensor &q, int64_t y) {
                         double l = p.getDouble(x), r = q.getDouble(y);
                         o.setDouble(k, kind == Arith::Max ? std::max(l, r)
                                                           : std::min(l, r));
                       });
    }
    return setHost(0, std::move(acc));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(0, numInputs());
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  if (!isa<FloatType>(element)) {
    error() << "is only supported on f32, f16 and bf16 at run time";
    return failure();
  }
  Value acc;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Value> v = operandAs(i, element, *shape);
    if (failed(v))
      return failure();
    acc = acc ? materializedBinary(kind, acc, *v) : *v;
  }
  return setValue(0, acc);
}

LogicalResult Importer::importCompare(Compare kind) {
  if (failed(checkArity(2, 2)))
    return failure();
  if (uniformOf(0) || uniformOf(1))
    return importUniformCompare(kind);
  FailureOr<const HostTensor *> a = hostOf(0), b = hostOf(1);
  FailureOr<Shape> lhsShape = inputShape(0), rhsShape = inputShape(1);
  if (failed(a) || failed(b) || failed(lhsShape) || failed(rhsShape))
    return failure();
  FailureOr<Shape> shape = broadcastShapes({*lhsShape, *rhsShape});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (*a && *b) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isFloat = (*a)->isFloat() || (*b)->isFloat();
    HostTensor out = foldBinary(
        **a, **b, *shape, kBool,
        [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
            const HostTensor &q, int64_t j) {
          bool v = isFloat ? compareValues(kind, p.getDouble(i), q.getDouble(j))
                           : compareValues(kind, p.getInt(i), q.getInt(j));
          o.setInt(k, v);
        });
    return setHost(0, std::move(out));
  }
  FailureOr<Value> runtime = value(*a ? 1 : 0);
  if (failed(runtime))
    return failure();
  Type element = elementOf(*runtime);
  if (element.isInteger(1)) {
    error() << "comparing i1 tensors at run time is not supported";
    return failure();
  }
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(element, *shape);
  if (failed(operands))
    return failure();
  CompareDirection direction = CompareDirection::EQ;
  switch (kind) {
  case Compare::EQ:
    direction = CompareDirection::EQ;
    break;
  case Compare::GT:
    direction = CompareDirection::GT;
    break;
  case Compare::LT:
    direction = CompareDirection::LT;
    break;
  case Compare::GE:
    direction = CompareDirection::GE;
    break;
  case Compare::LE:
    direction = CompareDirection::LE;
    break;
  }
  Value result =
      CompareOp::create(builder, loc, tensorType(*shape, builder.getI1Type()),
                        direction, operands->first, operands->second);
  return setValue(0, result);
}

/// Builds `OpTy` on `x`, as most unary ops import.
template <typename OpTy> static Value buildUnary(Importer &im, Value x) {
  return OpTy::create(im.builder, im.loc, x.getType(), x);
}

/// Integer negation wraps (the host holds every integer type as int64).
static int64_t wrappingNeg(int64_t v) {
  return static_cast<int64_t>(0 - static_cast<uint64_t>(v));
}

/// An element-wise unary op: how it folds on the host (floating point, and
/// integers where ONNX defines it) and what it builds at run time.
struct mlir::amp::onnx_import::UnaryOpInfo {
  const char *opType;
  double (*foldFloat)(double);
  /// Null: the op is only supported on floating-point tensors.
  int64_t (*foldInt)(int64_t);
  Value (*build)(Importer &, Value);
};

/// The unary ops; adding one is adding an entry.
static const UnaryOpInfo kUnaryOps[] = {
    {"Relu", [](double v) { return v > 0 ? v : 0.0; },
     [](int64_t v) { return std::max<int64_t>(v, 0); }, buildUnary<ReluOp>},
    {"Erf", [](double v) { return std::erf(v); }, nullptr, buildUnary<ErfOp>},
    {"Tanh", [](double v) { return std::tanh(v); }, nullptr,
     buildUnary<TanhOp>},
    {"Sin", [](double v) { return std::sin(v); }, nullptr, buildUnary<SinOp>},
    {"Cos", [](double v) { return std::cos(v); }, nullptr, buildUnary<CosOp>},
    {"Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, nullptr,
     buildUnary<SigmoidOp>},
    // max(v, 0) + log1p(exp(-|v|)): exp never overflows.
    {"Softplus",
     [](double v) {
       return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v)));
     },
     nullptr, buildUnary<SoftplusOp>},
    {"Sqrt", [](double v) { return std::sqrt(v); }, nullptr,
     buildUnary<SqrtOp>},
    {"Neg", [](double v) { return -v; }, wrappingNeg, buildUnary<NegOp>},
    {"Exp", [](double v) { return std::exp(v); }, nullptr, buildUnary<ExpOp>},
    {"Log", [](double v) { return std::log(v); }, nullptr, buildUnary<LogOp>},
    {"Reciprocal", [](double v) { return 1.0 / v; }, nullptr,
     [](Importer &im, Value x) -> Value {
       return DivOp::create(im.builder, im.loc, x.getType(),
                            im.splat(1.0, cast<RankedTensorType>(x.getType())),
                            x);
     }},
    {"Abs", [](double v) { return std::fabs(v); },
     [](int64_t v) { return v < 0 ? wrappingNeg(v) : v; },
     [](Importer &im, Value x) -> Value {
       return MaximumOp::create(im.builder, im.loc, x.getType(), x,
                                buildUnary<NegOp>(im, x));
     }},
};

LogicalResult Importer::importUnary(const UnaryOpInfo &op) {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    HostTensor out = **known;
    if (!out.isFloat() && !op.foldInt) {
      error() << "is only supported on floating-point tensors";
      return failure();
    }
    for (int64_t k = 0; k < out.size(); ++k) {
      if (out.isFloat())
        out.setDouble(k, op.foldFloat(out.floats[k]));
      else
        out.setInt(k, op.foldInt(out.ints[k]));
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  return setValue(0, op.build(*this, *input));
}

LogicalResult Importer::importLogical(StringRef kind) {
  bool isNot = kind == "Not";
  if (failed(checkArity(isNot ? 1 : 2, isNot ? 1 : 2)))
    return failure();
  SmallVector<Shape> shapes;
  bool allKnown = true;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Shape> s = inputShape(i);
    FailureOr<int32_t> dtype = inputDType(i);
    FailureOr<const HostTensor *> h = hostOf(i);
    if (failed(s) || failed(dtype) || failed(h))
      return failure();
    if (*dtype != kBool) {
      error() << inputLabel(i) << " must be BOOL, got " << dtypeName(*dtype);
      return failure();
    }
    shapes.push_back(*s);
    allKnown &= *h != nullptr;
  }
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    if (isNot) {
      HostTensor out = **hostOf(0);
      for (int64_t &v : out.ints)
        v = !v;
      return setHost(0, std::move(out));
    }
    if (failed(checkFoldSize(*shape)))
      return failure();
    bool isAnd = kind == "And";
    HostTensor out =
        foldBinary(**hostOf(0), **hostOf(1), *shape, kBool,
                   [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
                       const HostTensor &q, int64_t j) {
                     bool l = p.getInt(i), r = q.getInt(j);
                     o.setInt(k, isAnd ? (l && r) : (l || r));
                   });
    return setHost(0, std::move(out));
  }
  Type i1 = builder.getI1Type();
  RankedTensorType type = tensorType(*shape, i1);
  auto boolConst = [&](bool v) {
    HostTensor t = HostTensor::scalarInt(v, kBool);
    return constant(t, type);
  };
  FailureOr<Value> lhs = operandAs(0, i1, *shape);
  if (failed(lhs))
    return failure();
  if (isNot)
    return setValue(0, WhereOp::create(builder, loc, type, *lhs,
                                       boolConst(false), boolConst(true)));
  FailureOr<Value> rhs = operandAs(1, i1, *shape);
  if (failed(rhs))
    return failure();
  Value result =
      kind == "And"
          ? WhereOp::create(builder, loc, type, *lhs, *rhs, boolConst(false))
          : WhereOp::create(builder, loc, type, *lhs, boolConst(true), *rhs);
  return setValue(0, result);
}

LogicalResult Importer::importWhere() {
  if (failed(checkArity(3, 3)))
    return failure();
  SmallVector<Shape> shapes;
  bool allKnown;
  if (failed(inputShapes(3, shapes, allKnown)))
    return failure();
  FailureOr<int32_t> condType = inputDType(0);
  if (failed(condType))
    return failure();
  if (*condType != kBool) {
    error() << "the condition must be BOOL, got " << dtypeName(*condType);
    return failure();
  }
  FailureOr<Shape> shape = broadcastShapes(shapes);
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  if (allKnown) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    const HostTensor &c = **hostOf(0), &x = **hostOf(1), &y = **hostOf(2);
    HostTensor out = HostTensor::zeros(x.dtype, *shape);
    Shape os = stridesOf(*shape), cs = stridesOf(c.shape),
          xs = stridesOf(x.shape), ys = stridesOf(y.shape);
    for (int64_t k = 0; k < out.size(); ++k) {
      bool pick = c.getInt(broadcastSourceIndex(k, *shape, os, c.shape, cs));
      if (pick)
        out.setDouble(
            k, x.getDouble(broadcastSourceIndex(k, *shape, os, x.shape, xs)));
      else
        out.setDouble(
            k, y.getDouble(broadcastSourceIndex(k, *shape, os, y.shape, ys)));
      if (!out.isFloat())
        out.setInt(
            k,
            pick ? x.getInt(broadcastSourceIndex(k, *shape, os, x.shape, xs))
                 : y.getInt(broadcastSourceIndex(k, *shape, os, y.shape, ys)));
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(1, 3);
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  if (!element) {
    FailureOr<int32_t> dtype = inputDType(1);
    element = runtimeElementType(*dtype, context);
    if (!element) {
      error() << "values of type " << dtypeName(*dtype) << " are not supported";
      return failure();
    }
  }
  FailureOr<Value> cond = operandAs(0, builder.getI1Type(), *shape);
  if (failed(cond))
    return failure();
  FailureOr<Value> x = operandAs(1, element, *shape);
  if (failed(x))
    return failure();
  FailureOr<Value> y = operandAs(2, element, *shape);
  if (failed(y))
    return failure();
  return setValue(0, WhereOp::create(builder, loc, tensorType(*shape, element),
                                     *cond, *x, *y));
}

LogicalResult Importer::importClip() {
  if (failed(checkArity(1, 3)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  std::optional<double> lo, hi;
  bool boundsKnown = true;
  for (unsigned i = 1; i < 3; ++i) {
    if (!hasInput(i))
      continue;
    FailureOr<const HostTensor *> bound = hostOf(i);
    if (failed(bound))
      return failure();
    FailureOr<Entry *> e = entry(i);
    if (!*bound && (*e)->initializer) {
      FailureOr<const HostTensor *> read = requireHost(i, "bound");
      if (failed(read))
        return failure();
      bound = *read;
    }
    if (!*bound) {
      boundsKnown = false;
      continue;
    }
    if ((*bound)->size() != 1) {
      error() << inputLabel(i) << " must be a scalar";
      return failure();
    }
    (i == 1 ? lo : hi) = (*bound)->getDouble(0);
  }
  if (*known && boundsKnown) {
    HostTensor out = **known;
    for (int64_t k = 0; k < out.size(); ++k) {
      double v = out.getDouble(k);
      if (lo && v < *lo)
        v = *lo;
      if (hi && v > *hi)
        v = *hi;
      out.setDouble(k, v);
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "input");
  if (failed(input))
    return failure();
  Value x = *input;
  ArrayRef<int64_t> shape = shapeOf(x);
  RankedTensorType type = cast<RankedTensorType>(x.getType());
  for (unsigned i = 1; i < 3; ++i) {
    if (!hasInput(i))
      continue;
    Value bound;
    std::optional<double> constantBound = i == 1 ? lo : hi;
    if (constantBound) {
      bound = splat(*constantBound, type);
    } else {
      FailureOr<Value> b = operandAs(i, type.getElementType(), shape);
      if (failed(b))
        return failure();
      bound = *b;
    }
    x = i == 1 ? Value(MaximumOp::create(builder, loc, type, x, bound))
               : Value(MinimumOp::create(builder, loc, type, x, bound));
  }
  return setValue(0, x);
}

LogicalResult Importer::importCast(bool like) {
  if (failed(checkArity(like ? 2 : 1, like ? 2 : 1)))
    return failure();
  int32_t to = kUndefined;
  if (like) {
    FailureOr<int32_t> target = inputDType(1);
    if (failed(target))
      return failure();
    to = *target;
  } else {
    FailureOr<int64_t> attrTo = intAttr("to", -1);
    if (failed(attrTo))
      return failure();
    if (!attr("to")) {
      error() << "has no 'to' attribute";
      return failure();
    }
    to = static_cast<int32_t>(*attrTo);
  }
  if (dtypeSize(to) == 0) {
    error() << "casts to " << dtypeName(to) << ", which is not supported";
    return failure();
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    const HostTensor &in = **known;
    HostTensor out = HostTensor::zeros(to, in.shape);
    for (int64_t k = 0; k < in.size(); ++k) {
      if (to == kBool)
        out.setInt(k, in.getDouble(k) != 0);
      else if (in.isFloat())
        out.setDouble(k, in.floats[k]);
      else
        out.setInt(k, in.ints[k]);
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  Type from = elementOf(*input);
  Type target = runtimeElementType(to, context);
  // PyTorch exports torch.isinf(x) as IsInf(Cast(x, DOUBLE)); widening keeps
  // every inf and NaN, so the test reads x itself.
  if (!target && to == kDouble && isa<FloatType>(from) &&
      outputOnlyFeeds(0, {"IsInf", "IsNaN"}))
    return setValue(0, *input);
  if (!target) {
    error() << "casts a run-time tensor to " << dtypeName(to)
            << ", which amp does not support";
    return failure();
  }
  if (from == target)
    return setValue(0, *input);
  RankedTensorType type = tensorType(shapeOf(*input), target);
  if (isa<FloatType>(from) && isa<FloatType>(target))
    return setValue(0, CastOp::create(builder, loc, type, *input));
  if (from.isInteger(1) && isa<FloatType>(target))
    return setValue(0, WhereOp::create(builder, loc, type, *input,
                                       splat(1.0, type), splat(0.0, type)));
  if (isa<FloatType>(from) && target.isInteger(1)) {
    RankedTensorType fromType = cast<RankedTensorType>(input->getType());
    return setValue(0,
                    CompareOp::create(builder, loc, type, CompareDirection::NE,
                                      *input, splat(0.0, fromType)));
  }
  error() << "casts a run-time tensor from " << typeName(from) << " to "
          << typeName(target)
          << ", which amp does not support (it casts between f32, f16 and "
             "bf16, and from and to i1)";
  return failure();
}

/// Mod, in the shape arithmetic of exporters (PyTorch 2.x's attention
/// computes head sizes with it): folded on known tensors only.
LogicalResult Importer::importMod() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> fmod = intAttr("fmod", 0);
  FailureOr<const HostTensor *> a = hostOf(0), b = hostOf(1);
  FailureOr<Shape> lhsShape = inputShape(0), rhsShape = inputShape(1);
  if (failed(fmod) || failed(a) || failed(b) || failed(lhsShape) ||
      failed(rhsShape))
    return failure();
  if (*fmod != 0 && *fmod != 1) {
    error() << "fmod must be 0 or 1, got " << *fmod;
    return failure();
  }
  if (!*a || !*b) {
    error() << "Mod of a tensor computed at run time is not supported (amp "
               "has no remainder op; Mod of values known at import time is "
               "folded)";
    return failure();
  }
  if ((*a)->dtype != (*b)->dtype) {
    error() << "operands have different element types ("
            << dtypeName((*a)->dtype) << " and " << dtypeName((*b)->dtype)
            << ")";
    return failure();
  }
  FailureOr<Shape> shape = broadcastShapes({*lhsShape, *rhsShape});
  if (failed(shape) || failed(checkShape(*shape)) ||
      failed(checkFoldSize(*shape)))
    return failure();
  bool isFloat = (*a)->isFloat(), byZero = false;
  if (isFloat && !*fmod) {
    error() << "Mod of floating-point tensors needs fmod=1";
    return failure();
  }
  HostTensor out = foldBinary(
      **a, **b, *shape, (*a)->dtype,
      [&](HostTensor &o, int64_t k, const HostTensor &p, int64_t i,
          const HostTensor &q, int64_t j) {
        if (isFloat) {
          o.setDouble(k, std::fmod(p.getDouble(i), q.getDouble(j)));
          return;
        }
        int64_t l = p.getInt(i), r = q.getInt(j);
        if (r == 0 || (r == -1 && l == std::numeric_limits<int64_t>::min())) {
          byZero = true;
          return;
        }
        int64_t m = l % r;
        // fmod=0: the sign of the divisor, as Python's %.
        if (!*fmod && m != 0 && ((m < 0) != (r < 0)))
          m += r;
        o.setInt(k, m);
      });
  if (byZero) {
    error() << "integer Mod by zero (or overflow) while folding";
    return failure();
  }
  return setHost(0, std::move(out));
}

/// HardSigmoid: max(0, min(1, alpha * x + beta)); HardSwish is
/// x * HardSigmoid(x) with alpha = 1/6, beta = 1/2 (MobileNetV3's
/// x * relu6(x + 3) / 6).
LogicalResult Importer::importHardSigmoid(bool swish) {
  if (failed(checkArity(1, 1)))
    return failure();
  double alpha = 1.0 / 6.0, beta = 0.5;
  if (!swish) {
    FailureOr<double> a = floatAttr("alpha", 0.2);
    FailureOr<double> b = floatAttr("beta", 0.5);
    if (failed(a) || failed(b))
      return failure();
    if (!std::isfinite(*a) || !std::isfinite(*b)) {
      error() << "alpha and beta must be finite, got " << *a << " and " << *b;
      return failure();
    }
    alpha = *a;
    beta = *b;
  }
  FailureOr<Value> input = floatValue(0, "X");
  if (failed(input))
    return failure();
  Value x = *input;
  auto type = cast<RankedTensorType>(x.getType());
  Value y = MulOp::create(builder, loc, type, x, splat(alpha, type));
  y = AddOp::create(builder, loc, type, y, splat(beta, type));
  y = MaximumOp::create(builder, loc, type, y, splat(0.0, type));
  y = MinimumOp::create(builder, loc, type, y, splat(1.0, type));
  if (swish)
    y = MulOp::create(builder, loc, type, x, y);
  return setValue(0, y);
}

/// Mish (opset 18): x * tanh(softplus(x)), as PyTorch's exporter writes
/// it before opset 18 (amp.softplus is the overflow-free form).
LogicalResult Importer::importMish() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Value> input = floatValue(0, "X");
  if (failed(input))
    return failure();
  Value x = *input;
  Type type = x.getType();
  Value soft = SoftplusOp::create(builder, loc, type, x);
  return setValue(0, MulOp::create(builder, loc, type, x,
                                   TanhOp::create(builder, loc, type, soft)));
}

/// IsNaN (x != x) and IsInf (x == +inf, x == -inf, or max(x, -x) == inf),
/// folded on known tensors.
LogicalResult Importer::importIsNaNOrInf(bool nan) {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<int64_t> negative = intAttr("detect_negative", 1);
  FailureOr<int64_t> positive = intAttr("detect_positive", 1);
  if (failed(negative) || failed(positive))
    return failure();
  if (!nan &&
      (*negative < 0 || *negative > 1 || *positive < 0 || *positive > 1)) {
    error() << "detect_negative and detect_positive must be 0 or 1, got "
            << *negative << " and " << *positive;
    return failure();
  }
  auto detects = [&](double v) {
    if (nan)
      return std::isnan(v);
    return std::isinf(v) && ((v > 0 && *positive) || (v < 0 && *negative));
  };
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (!(*known)->isFloat()) {
      error() << "X must be a floating-point tensor, got "
              << dtypeName((*known)->dtype);
      return failure();
    }
    HostTensor out = HostTensor::zeros(kBool, (*known)->shape);
    for (int64_t k = 0; k < out.size(); ++k)
      out.setInt(k, detects((*known)->floats[k]));
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = floatValue(0, "X");
  if (failed(input))
    return failure();
  Value x = *input;
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType maskType = tensorType(type.getShape(), builder.getI1Type());
  if (nan)
    return setValue(0, CompareOp::create(builder, loc, maskType,
                                         CompareDirection::NE, x, x));
  if (!*negative && !*positive)
    return setValue(0, constant(HostTensor::scalarInt(0, kBool), maskType));
  double infinity = std::numeric_limits<double>::infinity();
  Value probe = x, bound = splat(*positive ? infinity : -infinity, type);
  if (*negative && *positive)
    probe = MaximumOp::create(builder, loc, type, x,
                              NegOp::create(builder, loc, type, x));
  return setValue(0, CompareOp::create(builder, loc, maskType,
                                       CompareDirection::EQ, probe, bound));
}

void mlir::amp::onnx_import::registerElementwiseHandlers(OpTable &table) {
  auto arith = [&](StringRef opType, Arith kind) {
    table.onOp(opType, kMinOpset,
               [kind](Importer &im) { return im.importArith(kind); });
  };
  arith("Add", Arith::Add);
  arith("Sub", Arith::Sub);
  arith("Mul", Arith::Mul);
  arith("Div", Arith::Div);
  arith("Pow", Arith::Pow);
  table.onOp("Max", kMinOpset,
             [](Importer &im) { return im.importVariadic(Arith::Max); });
  table.onOp("Min", kMinOpset,
             [](Importer &im) { return im.importVariadic(Arith::Min); });
  auto compare = [&](StringRef opType, Compare kind) {
    table.onOp(opType, kMinOpset,
               [kind](Importer &im) { return im.importCompare(kind); });
  };
  compare("Equal", Compare::EQ);
  compare("Greater", Compare::GT);
  compare("Less", Compare::LT);
  compare("GreaterOrEqual", Compare::GE);
  compare("LessOrEqual", Compare::LE);
  for (StringRef opType : {"Not", "And", "Or"})
    table.onOp(opType, kMinOpset,
               [opType](Importer &im) { return im.importLogical(opType); });
  for (const UnaryOpInfo &op : kUnaryOps)
    table.onOp(op.opType, kMinOpset,
               [&op](Importer &im) { return im.importUnary(op); });
  table.onOp("Mod", kMinOpset, &Importer::importMod);
  table.onOp("Mish", 18, &Importer::importMish);
  table.onOp("HardSigmoid", kMinOpset, [](Importer &im) {
    return im.importHardSigmoid(/*swish=*/false);
  });
  table.onOp("HardSwish", 14,
             [](Importer &im) { return im.importHardSigmoid(/*swish=*/true); });
  table.onOp("IsNaN", kMinOpset,
             [](Importer &im) { return im.importIsNaNOrInf(/*nan=*/true); });
  table.onOp("IsInf", kMinOpset,
             [](Importer &im) { return im.importIsNaNOrInf(/*nan=*/false); });
  table.onOp("Where", kMinOpset, &Importer::importWhere);
  table.onOp("Clip", kMinOpset, &Importer::importClip);
  table.onOp("Cast", kMinOpset,
             [](Importer &im) { return im.importCast(/*like=*/false); });
  table.onOp("CastLike", kMinOpset,
             [](Importer &im) { return im.importCast(/*like=*/true); });
}
