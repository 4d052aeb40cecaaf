//===- float8_check.cpp - the f8 conversions of Numerics.h, checked -------===//
//
// Built by the tests of this directory (lit.local.cfg: %float8_cxx), against
// include/amp/Runtime/Numerics.h and LLVM's APFloat:
//
//   float8_check reference  compares Numerics.h's f8 conversions with APFloat
//                           (what arith.truncf and arith.extf mean), saturating
//                           variants included, on structured and random
//                           inputs, and checks the f8 model dtypes' size,
//                           name, store and load; prints PASS or the first
//                           mismatches.
//   float8_check mlir [vectors]
//                           prints an MLIR program that converts a table of
//                           inputs through the pipeline under test and
//                           compares every result with Numerics.h's (ties,
//                           subnormals, every f8 value and its neighbours,
//                           the largest finite values and just past them,
//                           +-0, infinities, NaNs, random values; every
//                           bf16 and f16 bit pattern; every f8 bit pattern
//                           widened); with `vectors`, f32 is also
//                           converted 8 lanes at a time (vector code,
//                           which the CPU pipeline does not lower).
//   float8_check convert    reads little-endian f32 bit patterns from stdin,
//                           writes per input the e4m3fn, e5m2, saturated
//                           e4m3fn and saturated e5m2 bytes (for the PyTorch
//                           comparison, torch_float8.py); `convert widen`
//                           writes the f32 bits of the 256 e4m3fn and then
//                           the 256 e5m2 values.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/APFloat.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using amp::bitsToFloat;
using amp::floatBits;
using llvm::APFloat;
using llvm::APInt;

namespace {
struct Format {
  const char *name;
  const llvm::fltSemantics &(*semantics)();
  uint8_t (*narrow)(float, bool);
  float (*widen)(uint8_t);
  uint8_t maxFinite;
  bool hasInfinity;
};

const Format kFormats[] = {
    {"f8E4M3FN", APFloat::Float8E4M3FN, amp::floatToFloat8E4M3FN,
     amp::float8E4M3FNToFloat, 0x7e, false},
    {"f8E5M2", APFloat::Float8E5M2, amp::floatToFloat8E5M2,
     amp::float8E5M2ToFloat, 0x7b, true},
};

uint64_t convertBits(const llvm::fltSemantics &from, unsigned fromWidth,
                     uint64_t bits, const llvm::fltSemantics &to) {
  APFloat value(from, APInt(fromWidth, bits));
  bool losesInfo;
  value.convert(to, APFloat::rmNearestTiesToEven, &losesInfo);
  return value.bitcastToAPInt().getZExtValue();
}

bool isNaN8(const Format &format, uint8_t code) {
  return format.hasInfinity ? (code & 0x7f) > 0x7c : (code & 0x7f) == 0x7f;
}

/// APFloat's rounding of `bits` (f32), saturated where asked: a finite or
/// infinite input past the largest finite value gives +-max.
uint8_t expected(const Format &format, uint32_t bits, bool saturate) {
  auto code = static_cast<uint8_t>(
      convertBits(APFloat::IEEEsingle(), 32, bits, format.semantics()));
  bool inputNaN = (bits & 0x7fffffffu) > 0x7f800000u;
  bool overflowed = format.hasInfinity ? (code & 0x7f) == 0x7c
                                       : isNaN8(format, code) && !inputNaN;
  if (saturate && !inputNaN && overflowed)
    return (code & 0x80) | format.maxFinite;
  return code;
}

/// splitmix64, as amp::Random.
uint64_t nextRandom(uint64_t &state) {
  amp::Random random{state};
  uint64_t value = random.next();
  state = random.state;
  return value;
}

int checkReference() {
  int failures = 0;
  auto fail = [&](const char *what, const char *format, uint64_t input,
                  uint64_t got, uint64_t want) {
    if (++failures <= 20)
      std::printf("FAIL %s %s: input 0x%08" PRIx64 " got 0x%02" PRIx64
                  " want 0x%02" PRIx64 "\n",
                  what, format, input, got, want);
  };
  for (const Format &format : kFormats) {
    // Widening: every f8 bit pattern.
    for (unsigned code = 0; code < 256; ++code) {
      uint32_t want = static_cast<uint32_t>(
          convertBits(format.semantics(), 8, code, APFloat::IEEEsingle()));
      uint32_t got = floatBits(format.widen(static_cast<uint8_t>(code)));
      if (got != want)
        fail("widen", format.name, code, got, want);
    }
    // Narrowing f32: every sign, exponent and top 12 mantissa bits, with
    // low bits that make ties, just-under and just-over ties for both
    // formats' rounding positions (bits 19 and 20) and subnormal ones.
    const uint32_t tails[] = {0,       1,       0x3ffff, 0x40000, 0x40001,
                              0x7fffe, 0x7ffff, 0x12345, 0x5a5a5};
    uint64_t checked = 0;
    auto check = [&](uint32_t bits) {
      ++checked;
      for (bool saturate : {false, true}) {
        uint8_t want = expected(format, bits, saturate);
        uint8_t got = format.narrow(bitsToFloat(bits), saturate);
        if (got != want)
          fail(saturate ? "narrow-saturate" : "narrow", format.name, bits, got,
               want);
      }
    };
    for (uint32_t top = 0; top < (1u << 13); ++top)
      for (uint32_t tail : tails)
        check((top << 19) | tail);
    // Every bf16 value; random f32 bit patterns.
    for (uint32_t bf16 = 0; bf16 < 0x10000; ++bf16)
      check(bf16 << 16);
    uint64_t state = 39;
    for (int i = 0; i < 1000000; ++i)
      check(static_cast<uint32_t>(nextRandom(state)));
    // Every f16 value, converted by APFloat from f16 directly: rounding
    // the exact f32 value once gives the same.
    for (uint32_t half = 0; half < 0x10000; ++half) {
      uint8_t want = static_cast<uint8_t>(
          convertBits(APFloat::IEEEhalf(), 16, half, format.semantics()));
      uint8_t got = format.narrow(amp::halfToFloat(half), false);
      if (got != want)
        fail("narrow-f16", format.name, half, got, want);
    }
    std::printf("%s: %" PRIu64 " f32 inputs, 65536 f16 inputs, 256 codes "
                "widened\n",
                format.name, checked);
  }
  // The model ABI's f8 dtypes: one byte, floats, their names, stored and
  // loaded through the conversions (not saturating, as PyTorch's e5m2).
  struct {
    int32_t dtype;
    const char *name;
    double value;
    uint8_t code;
  } dtypes[] = {{AMP_DTYPE_F8E4M3FN, "f8E4M3FN", -1.75, 0xbe},
                {AMP_DTYPE_F8E5M2, "f8E5M2", 1e6, 0x7c}};
  for (const auto &d : dtypes) {
    uint8_t byte = 0;
    amp::storeValue(&byte, d.dtype, 0, d.value);
    double loaded = amp::loadValue(&byte, d.dtype, 0);
    bool ok = amp::elementBytes(d.dtype) == 1 && amp::isFloatDtype(d.dtype) &&
              std::strcmp(amp::dtypeName(d.dtype), d.name) == 0 &&
              byte == d.code && loaded == (d.code == 0x7c ? HUGE_VAL : d.value);
    if (!ok && ++failures <= 20)
      std::printf("FAIL dtype %s: stored 0x%02x, loaded %g\n", d.name, byte,
                  loaded);
  }
  std::printf(failures ? "FAIL reference: %d mismatches\n"
                       : "PASS reference: %d mismatches\n",
              failures);
  return failures != 0;
}

/// The f32 inputs of the execution test.
std::vector<uint32_t> executionInputs() {
  std::set<uint32_t> inputs;
  auto add = [&](uint32_t bits) {
    inputs.insert(bits);
    inputs.insert(bits ^ 0x80000000u);
  };
  auto neighbours = [&](uint32_t bits) {
    add(bits);
    if ((bits & 0x7fffffffu) != 0)
      add(bits - 1);
    add(bits + 1);
  };
  for (const Format &format : kFormats) {
    // Every finite f8 value and the f32 values either side of it; the
    // midpoints between neighbours (ties to even) and either side of them.
    for (unsigned code = 0; code <= format.maxFinite; ++code) {
      float value = format.widen(static_cast<uint8_t>(code));
      neighbours(floatBits(value));
      float next =
          code < format.maxFinite
              ? format.widen(static_cast<uint8_t>(code + 1))
              // Past the largest: where the next value would be.
              : 2 * value - format.widen(static_cast<uint8_t>(code - 1));
      neighbours(floatBits((value + next) / 2)); // exact in f32
    }
  }
  // Zeros, infinities, NaNs with payloads, f32 subnormals, the largest f32.
  for (uint32_t bits :
       {0u, 0x7f800000u, 0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0x7fe00000u,
        0x7fffffffu, 0x7fd55555u, 0x00000001u, 0x00400000u, 0x007fffffu,
        0x7f7fffffu, 0x3f800000u, 0x47800000u, 0x4f000000u})
    add(bits);
  // Random values: any bit pattern, and values near the f8 ranges.
  uint64_t state = 8;
  for (int i = 0; i < 8000; ++i) {
    uint32_t bits = static_cast<uint32_t>(nextRandom(state));
    add(bits);
    uint32_t exponent = 100 + static_cast<uint32_t>(nextRandom(state) % 60);
    add((exponent << 23) | (bits & 0x7fffffu));
  }
  std::vector<uint32_t> table(inputs.begin(), inputs.end());
  while (table.size() % 8) // the vector case converts 8 at a time
    table.push_back(0);
  return table;
}

std::string hex(const void *data, size_t bytes) {
  static const char digits[] = "0123456789ABCDEF";
  std::string text = "\"0x";
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t byte = static_cast<const uint8_t *>(data)[i];
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text + "\"";
}

/// `text` with each {KEY} replaced by its value.
std::string
fill(std::string text,
     std::initializer_list<std::pair<const char *, std::string>> values) {
  for (const auto &[key, value] : values) {
    std::string pattern = std::string("{") + key + "}";
    for (size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + value.size()))
      text.replace(at, pattern.size(), value);
  }
  return text;
}

/// The comparison loop of one case: the results in {GOT} (a tensor or
/// memref of {ELEMENT}, compared as {INT}) against the global {WANT}, printing
/// the first mismatches with their inputs ({INPUTS}) and the count.
std::string compare(const std::string &name, const std::string &got,
                    const std::string &element, const std::string &intType,
                    size_t count, const std::string &inputs,
                    const std::string &inputElement, bool gotTensor) {
  return fill(R"(
  %want_{NAME} = memref.get_global @want_{NAME} : memref<{N}x{INT}>
  %c{N}_{NAME} = arith.constant {N} : index
  %bad_{NAME} = scf.for %i = %c0 to %c{N}_{NAME} step %c1 iter_args(%n = %z) -> (i32) {
    %g = {LOAD} {GOT}[%i] : {GOTTYPE}<{N}x{ELEMENT}>
    %gi = arith.bitcast %g : {ELEMENT} to {INT}
    %w = memref.load %want_{NAME}[%i] : memref<{N}x{INT}>
    %ne = arith.cmpi ne, %gi, %w : {INT}
    %first = arith.cmpi ult, %n, %c5i32 : i32
    %show = arith.andi %ne, %first : i1
    scf.if %show {
      %x = memref.load {INPUTS}[%i] : memref<{N}x{INELEMENT}>
      vector.print str "mismatch {NAME} at input "
      vector.print %x : {INELEMENT}
      vector.print str "  got "
      vector.print %gi : {INT}
      vector.print str "  want "
      vector.print %w : {INT}
    }
    %add = arith.extui %ne : i1 to i32
    %n2 = arith.addi %n, %add : i32
    scf.yield %n2 : i32
  }
  vector.print str "{NAME}: {N} inputs, mismatches "
  vector.print %bad_{NAME} : i32
)",
              {{"NAME", name},
               {"GOT", got},
               {"LOAD", gotTensor ? "tensor.extract" : "memref.load"},
               {"GOTTYPE", gotTensor ? "tensor" : "memref"},
               {"ELEMENT", element},
               {"INT", intType},
               {"N", std::to_string(count)},
               {"INPUTS", inputs},
               {"INELEMENT", inputElement}});
}

int printProgram(bool vectors) {
  std::vector<uint32_t> inputs = executionInputs();
  size_t n = inputs.size();
  std::string program =
      "// Generated by float8_check mlir: " + std::to_string(n) +
      " f32 inputs.\n";
  program += "memref.global \"private\" @inputs : memref<" + std::to_string(n) +
             "xi32> = dense<" + hex(inputs.data(), n * 4) + ">\n";
  auto global = [&](const std::string &name, size_t count, const char *type,
                    const void *data, size_t bytes) {
    program += "memref.global \"private\" constant @want_" + name +
               " : memref<" + std::to_string(count) + "x" + type +
               "> = dense<" + hex(data, bytes) + ">\n";
  };
  for (const Format &format : kFormats) {
    std::vector<uint8_t> f32(n), bf16(0x10000), f16(0x10000);
    for (size_t i = 0; i < n; ++i)
      f32[i] = format.narrow(bitsToFloat(inputs[i]), false);
    for (uint32_t b = 0; b < 0x10000; ++b) {
      bf16[b] =
          format.narrow(amp::bfloat16ToFloat(static_cast<uint16_t>(b)), false);
      f16[b] = format.narrow(amp::halfToFloat(static_cast<uint16_t>(b)), false);
    }
    // Widened: f32 from Numerics.h; bf16 its top half (exact: every f8
    // value is a bf16); f16 from APFloat (Numerics.h has no f8 -> f16).
    std::vector<uint32_t> toF32(256);
    std::vector<uint16_t> toBF16(256), toF16(256);
    for (unsigned code = 0; code < 256; ++code) {
      toF32[code] = floatBits(format.widen(static_cast<uint8_t>(code)));
      toBF16[code] = static_cast<uint16_t>(toF32[code] >> 16);
      toF16[code] = static_cast<uint16_t>(
          convertBits(format.semantics(), 8, code, APFloat::IEEEhalf()));
    }
    std::string f8 = format.name;
    global("f32_" + f8, n, "i8", f32.data(), n);
    if (vectors)
      global("vector_f32_" + f8, n, "i8", f32.data(), n);
    global("bf16_" + f8, 0x10000, "i8", bf16.data(), bf16.size());
    global("f16_" + f8, 0x10000, "i8", f16.data(), f16.size());
    global(f8 + "_f32", 256, "i32", toF32.data(), 256 * 4);
    global(f8 + "_bf16", 256, "i16", toBF16.data(), 256 * 2);
    global(f8 + "_f16", 256, "i16", toF16.data(), 256 * 2);
  }

  // The conversions, in public functions of their own so that nothing
  // folds them with the inputs: linalg.generic on tensors, as the amp
  // dialect's lowering makes them (scalar code after bufferization and the
  // pipeline's loops), and, for f32, 8-wide vectors on memrefs.
  program += "\n#id = affine_map<(d0) -> (d0)>\n";
  const char *generic = R"(
func.func @{NAME}(%in: tensor<{N}x{IN}>) -> tensor<{N}x{OUT}> {
  %init = tensor.empty() : tensor<{N}x{OUT}>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : tensor<{N}x{IN}>) outs(%init : tensor<{N}x{OUT}>) {
  ^bb0(%x: {IN}, %o: {OUT}):
    %y = arith.{OP} %x : {IN} to {OUT}
    linalg.yield %y : {OUT}
  } -> tensor<{N}x{OUT}>
  return %r : tensor<{N}x{OUT}>
}
)";
  for (const Format &format : kFormats) {
    std::string f8 = format.name;
    for (std::string wide : {"f32", "bf16", "f16"}) {
      program +=
          fill(generic, {{"NAME", "narrow_" + wide + "_" + f8},
                         {"N", wide == "f32" ? std::to_string(n) : "65536"},
                         {"IN", wide},
                         {"OUT", f8},
                         {"OP", "truncf"}});
      program += fill(generic, {{"NAME", "widen_" + f8 + "_" + wide},
                                {"N", "256"},
                                {"IN", f8},
                                {"OUT", wide},
                                {"OP", "extf"}});
    }
    if (vectors)
      program += fill(R"(
func.func @narrow_vector_f32_{F8}(%in: memref<?xf32>, %out: memref<?x{F8}>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {
    %x = vector.load %in[%i] : memref<?xf32>, vector<8xf32>
    %y = arith.truncf %x : vector<8xf32> to vector<8x{F8}>
    vector.store %y, %out[%i] : memref<?x{F8}>, vector<8x{F8}>
  }
  return
}
)",
                      {{"F8", f8}});
  }

  // main: the inputs (the table, and every bit pattern of the 16- and 8-bit
  // types), the conversions, the comparisons.
  std::string N = std::to_string(n);
  program += fill(R"(
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c65536 = arith.constant 65536 : index
  %cN = arith.constant {N} : index
  %z = arith.constant 0 : i32
  %c5i32 = arith.constant 5 : i32
  %bits = memref.get_global @inputs : memref<{N}xi32>
  %f32 = memref.alloc() : memref<{N}xf32>
  %all16 = memref.alloc() : memref<65536xi16>
  %bf16 = memref.alloc() : memref<65536xbf16>
  %f16 = memref.alloc() : memref<65536xf16>
  scf.for %i = %c0 to %cN step %c1 {
    %b = memref.load %bits[%i] : memref<{N}xi32>
    %f = arith.bitcast %b : i32 to f32
    memref.store %f, %f32[%i] : memref<{N}xf32>
  }
  scf.for %i = %c0 to %c65536 step %c1 {
    %i32 = arith.index_cast %i : index to i32
    %b = arith.trunci %i32 : i32 to i16
    memref.store %b, %all16[%i] : memref<65536xi16>
    %h = arith.bitcast %b : i16 to f16
    %bf = arith.bitcast %b : i16 to bf16
    memref.store %h, %f16[%i] : memref<65536xf16>
    memref.store %bf, %bf16[%i] : memref<65536xbf16>
  }
  %f32_d = memref.cast %f32 : memref<{N}xf32> to memref<?xf32>
  %f32_t = bufferization.to_tensor %f32 restrict : memref<{N}xf32> to tensor<{N}xf32>
  %bf16_t = bufferization.to_tensor %bf16 restrict : memref<65536xbf16> to tensor<65536xbf16>
  %f16_t = bufferization.to_tensor %f16 restrict : memref<65536xf16> to tensor<65536xf16>
)",
                  {{"N", N}});
  const char *call = R"(
  %{RESULT} = call @{FUNC}(%{IN}) : (tensor<{COUNT}x{INTYPE}>) -> tensor<{COUNT}x{OUT}>
)";
  for (const Format &format : kFormats) {
    std::string f8 = format.name;
    program += fill(R"(
  %codes_{F8} = memref.alloc() : memref<256x{F8}>
  %codes_i8_{F8} = memref.alloc() : memref<256xi8>
  scf.for %i = %c0 to %c256 step %c1 {
    %i32 = arith.index_cast %i : index to i32
    %b = arith.trunci %i32 : i32 to i8
    memref.store %b, %codes_i8_{F8}[%i] : memref<256xi8>
    %f = arith.bitcast %b : i8 to {F8}
    memref.store %f, %codes_{F8}[%i] : memref<256x{F8}>
  }
  %codes_{F8}_t = bufferization.to_tensor %codes_{F8} restrict : memref<256x{F8}> to tensor<256x{F8}>
)",
                    {{"F8", f8}});
    program += fill(call, {{"RESULT", "from_f32_" + f8},
                           {"COUNT", N},
                           {"OUT", f8},
                           {"FUNC", "narrow_f32_" + f8},
                           {"IN", "f32_t"},
                           {"INTYPE", "f32"}});
    if (vectors)
      program += fill(R"(
  %from_vector_f32_{F8} = memref.alloc() : memref<{N}x{F8}>
  %from_vector_f32_{F8}_d = memref.cast %from_vector_f32_{F8} : memref<{N}x{F8}> to memref<?x{F8}>
  call @narrow_vector_f32_{F8}(%f32_d, %from_vector_f32_{F8}_d) : (memref<?xf32>, memref<?x{F8}>) -> ()
)",
                      {{"F8", f8}, {"N", N}});
    for (std::string wide : {"bf16", "f16"})
      program += fill(call, {{"RESULT", "from_" + wide + "_" + f8},
                             {"COUNT", "65536"},
                             {"OUT", f8},
                             {"FUNC", "narrow_" + wide + "_" + f8},
                             {"IN", wide + "_t"},
                             {"INTYPE", wide}});
    for (std::string wide : {"f32", "bf16", "f16"})
      program += fill(call, {{"RESULT", "to_" + f8 + "_" + wide},
                             {"COUNT", "256"},
                             {"OUT", wide},
                             {"FUNC", "widen_" + f8 + "_" + wide},
                             {"IN", "codes_" + f8 + "_t"},
                             {"INTYPE", f8}});
    program += compare("f32_" + f8, "%from_f32_" + f8, f8, "i8", n, "%bits",
                       "i32", true);
    if (vectors)
      program += compare("vector_f32_" + f8, "%from_vector_f32_" + f8, f8, "i8",
                         n, "%bits", "i32", /*gotTensor=*/false);
    program += compare("bf16_" + f8, "%from_bf16_" + f8, f8, "i8", 65536,
                       "%all16", "i16", true);
    program += compare("f16_" + f8, "%from_f16_" + f8, f8, "i8", 65536,
                       "%all16", "i16", true);
    program += compare(f8 + "_f32", "%to_" + f8 + "_f32", "f32", "i32", 256,
                       "%codes_i8_" + f8, "i8", true);
    program += compare(f8 + "_bf16", "%to_" + f8 + "_bf16", "bf16", "i16", 256,
                       "%codes_i8_" + f8, "i8", true);
    program += compare(f8 + "_f16", "%to_" + f8 + "_f16", "f16", "i16", 256,
                       "%codes_i8_" + f8, "i8", true);
  }
  program += "  return\n}\n";
  std::fputs(program.c_str(), stdout);
  return 0;
}

int convert(bool widen) {
  if (widen) {
    for (const Format &format : kFormats)
      for (unsigned code = 0; code < 256; ++code) {
        uint32_t bits = floatBits(format.widen(static_cast<uint8_t>(code)));
        std::fwrite(&bits, 4, 1, stdout);
      }
    return 0;
  }
  uint32_t bits;
  while (std::fread(&bits, 4, 1, stdin) == 1) {
    float value = bitsToFloat(bits);
    uint8_t out[4] = {amp::floatToFloat8E4M3FN(value),
                      amp::floatToFloat8E5M2(value),
                      amp::floatToFloat8E4M3FN(value, /*saturate=*/true),
                      amp::floatToFloat8E5M2(value, /*saturate=*/true)};
    std::fwrite(out, 1, 4, stdout);
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "reference")
    return checkReference();
  if (mode == "mlir")
    return printProgram(argc > 2 && std::string(argv[2]) == "vectors");
  if (mode == "convert")
    return convert(argc > 2 && std::string(argv[2]) == "widen");
  std::fprintf(stderr, "usage: float8_check reference | mlir [vectors] | "
                       "convert [widen]\n");
  return 2;
}
