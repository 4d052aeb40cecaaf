//===- IRNestingDepth.cpp - bound the nesting of parsed IR ----------------===//
//
// MLIR bytecode is read without recursion, but the printer, the bytecode
// writer and other walks over attributes, types and regions recurse per
// level: 100,000 nested arrays read from bytecode crash them. The text scan
// of NestingDepth.h cannot see into bytecode, so the IR is measured once
// read, without recursion (an explicit stack, each attribute and type
// measured once).
//
//===----------------------------------------------------------------------===//

#include "amp/Support/NestingDepth.h"
#include "amp/Support/ToolIO.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {
/// An attribute or a type.
struct Element {
  const void *pointer;
  bool isType;

  void walkChildren(llvm::function_ref<void(Element)> fn) const {
    auto onAttr = [&](Attribute attr) {
      fn({attr.getAsOpaquePointer(), false});
    };
    auto onType = [&](Type type) { fn({type.getAsOpaquePointer(), true}); };
    if (isType)
      Type::getFromOpaquePointer(pointer).walkImmediateSubElements(onAttr,
                                                                   onType);
    else
      Attribute::getFromOpaquePointer(pointer).walkImmediateSubElements(onAttr,
                                                                        onType);
  }
};

class DepthMeasure {
public:
  explicit DepthMeasure(size_t limit) : limit(limit) {}

  /// Whether `root` nests deeper than the limit.
  bool exceeds(Element root) {
    struct Entry {
      Element element;
      size_t pathDepth;
      bool expanded;
    };
    std::vector<Entry> stack = {{root, 1, false}};
    while (!stack.empty()) {
      Entry entry = stack.back();
      if (depths.count(entry.element.pointer)) {
        stack.pop_back();
        continue;
      }
      if (entry.pathDepth > limit)
        return true;
      if (!entry.expanded) {
        stack.back().expanded = true;
        entry.element.walkChildren([&](Element child) {
          if (!depths.count(child.pointer))
            stack.push_back({child, entry.pathDepth + 1, false});
        });
        continue;
      }
      size_t depth = 1;
      entry.element.walkChildren([&](Element child) {
        depth = std::max(depth, depths.lookup(child.pointer) + 1);
      });
      if (depth > limit)
        return true;
      depths[entry.element.pointer] = depth;
      stack.pop_back();
    }
    return false;
  }

private:
  size_t limit;
  llvm::DenseMap<const void *, size_t> depths;
};
} // namespace

bool amp::exceedsNestingDepth(Operation *root, size_t limit) {
  DepthMeasure measure(limit);
  auto exceeds = [&](auto value) {
    return value && measure.exceeds({value.getAsOpaquePointer(),
                                     std::is_same_v<decltype(value), Type>});
  };
  std::vector<std::pair<Operation *, size_t>> worklist = {{root, 1}};
  while (!worklist.empty()) {
    auto [op, depth] = worklist.back();
    worklist.pop_back();
    if (depth > limit || exceeds(op->getPropertiesAsAttribute()) ||
        exceeds(Attribute(op->getDiscardableAttrDictionary())) ||
        exceeds(Attribute(op->getLoc())))
      return true;
    for (Type type : op->getResultTypes())
      if (exceeds(type))
        return true;
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        for (BlockArgument argument : block.getArguments())
          if (exceeds(argument.getType()))
            return true;
        for (Operation &nested : block)
          worklist.push_back({&nested, depth + 1});
      }
  }
  return false;
}

bool amp::checkBytecodeNesting(llvm::StringRef input, llvm::StringRef path,
                               Operation *module, std::string &error) {
  if (!isMLIRBytecode(input) || !exceedsNestingDepth(module))
    return true;
  error = (path + ": error: ").str() +
          describeExcessiveNesting("the MLIR bytecode input");
  return false;
}
