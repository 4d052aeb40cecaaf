//===- Inputs.cpp - what a run feeds the model ----------------------------===//

#include "amp/Host/Inputs.h"
#include "amp/Host/NpyFile.h"
#include "amp/Support/InputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>

using llvm::StringRef;
using namespace amp;

namespace {
std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

/// The data of a .npy file after checking its header against the tensor;
/// `error` says what is wrong otherwise. With `samples`, the file holds any
/// number of the tensor's rows (its first dimension is the sample axis),
/// and `samples` is set to that number.
std::optional<StringRef> npyData(StringRef contents,
                                 const amp_tensor_info &info,
                                 std::string &error,
                                 int64_t *samples = nullptr) {
  amp::NpyHeader header;
  if (!amp::parseNpy(contents, header, error))
    return std::nullopt;
  const char *descr = npyDescr(info.dtype);
  llvm::ArrayRef<int64_t> shape(info.shape, info.rank);
  if (!descr || header.descr != descr) {
    error = std::string("has another dtype than the model's (expected ") +
            (descr ? descr : "bf16, which .npy cannot hold: give a raw file") +
            "): it holds '" + header.descr + "'";
    return std::nullopt;
  }
  if (header.fortranOrder) {
    error = "is in Fortran order; save it in C order "
            "(numpy.ascontiguousarray)";
    return std::nullopt;
  }
  llvm::ArrayRef<int64_t> given(header.shape);
  if (samples && (given.empty() || shape.empty() ||
                  given.drop_front() != shape.drop_front())) {
    error = "has shape " + shapeString(header.shape) + " but the samples of '" +
            info.name + "' are " + shapeString(shape.drop_front()) +
            " (the first dimension counts the samples)";
    return std::nullopt;
  }
  if (!samples && given != shape) {
    error = "has shape " + shapeString(header.shape) + " but '" + info.name +
            "' is " + shapeString(shape);
    return std::nullopt;
  }
  if (samples)
    *samples = given.front();
  return header.data;
}

/// A value that an input or label must not hold: `value` at `element`,
/// for `reason`.
struct BadValue {
  int64_t element;
  std::string value, reason;
};

/// The first label outside the classes or NaN or infinite float in `data`
/// of tensor `info` (NaN or infinite data would only show as a NaN loss).
std::optional<BadValue> findBadValue(const amp_tensor_info &info,
                                     const void *data) {
  if (int64_t bad = amp::firstLabelOutOfRange(info, data); bad >= 0)
    return BadValue{
        bad, "label " + std::to_string(amp::loadInteger(data, info.dtype, bad)),
        ", outside the classes [0, " + std::to_string(info.label_range) + ")"};
  if (int64_t bad = amp::firstNonFinite(info, data); bad >= 0)
    return BadValue{bad, formatNumber(amp::loadValue(data, info.dtype, bad)),
                    " (data must be finite)"};
  return std::nullopt;
}

/// The input or label `name` that `option` feeds, or null after an error.
const amp_tensor_info *findInput(const Model &model, StringRef option,
                                 StringRef name,
                                 const Diagnostics &diagnostics) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (name == info->name &&
        (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL))
      return info;
  }
  diagnostics.error("--" + option + " " + name +
                    ": the model has no input or label named '" + name + "'");
  return nullptr;
}

/// The whole regular file `path` (amp::InputFile: a device, a FIFO, a
/// socket or a directory is refused unread), refused unread above `limit`
/// bytes; null after an error naming `option`.
std::unique_ptr<llvm::MemoryBuffer>
readInputFile(const llvm::Twine &option, StringRef path, uint64_t limit,
              const Diagnostics &diagnostics) {
  amp::InputFile file;
  std::string reason;
  if (!file.open(path.str(), reason)) {
    diagnostics.error(option + ": cannot read '" + path + "': " + reason);
    return nullptr;
  }
  if (file.size() > limit) {
    diagnostics.error(option + ": '" + path + "' has " +
                      llvm::Twine(file.size()) + " bytes, more than the " +
                      llvm::Twine(limit) +
                      " its tensor and a .npy header can take");
    return nullptr;
  }
  // Read, not mapped: a file cut short while mapped would be a SIGBUS.
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(file.size(), path);
  if (!buffer) {
    diagnostics.error(option + ": cannot read '" + path +
                      "': not enough memory");
    return nullptr;
  }
  if (!file.read(buffer->getBufferStart(), reason)) {
    diagnostics.error(option + ": cannot read '" + path + "': " + reason);
    return nullptr;
  }
  return buffer;
}

/// The most bytes of a .npy header amp-run reads: numpy writes a few
/// hundred (version 1.0 holds at most 64 KiB).
constexpr uint64_t kMaxNpyHeaderBytes = 1 << 20;
} // namespace

void amp::fillSynthetic(const amp_tensor_info &info, void *data,
                        Random &random) {
  for (int64_t i = 0; i < info.num_elements; ++i) {
    if (isFloatDtype(info.dtype)) {
      storeValue(data, info.dtype, i, random.normal());
      continue;
    }
    int64_t range = info.label_range > 0 ? info.label_range : 2;
    storeValue(data, info.dtype, i, static_cast<double>(random.next() % range));
  }
}

int amp::loadInput(const Model &model, amp_state *state, StringRef spec,
                   const Diagnostics &diagnostics) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return diagnostics.error("--input expects NAME=FILE, got '" + spec + "'");
  const amp_tensor_info *info = findInput(model, "input", name, diagnostics);
  if (!info)
    return 1;
  size_t expected = 0;
  amp::tensorBytes(*info, expected); // amp_state_create checked it
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(
      "--input " + name, path, expected + kMaxNpyHeaderBytes, diagnostics);
  if (!buffer)
    return 1;
  StringRef contents = buffer->getBuffer();
  if (path.ends_with(".npy") || amp::looksLikeNpy(contents)) {
    std::string error;
    std::optional<StringRef> data = npyData(contents, *info, error);
    if (!data)
      return diagnostics.error("--input " + name + ": '" + path + "' " + error);
    contents = *data;
  }
  if (contents.size() != expected)
    return diagnostics.error("--input " + name + ": '" + path + "' holds " +
                             llvm::Twine(contents.size()) +
                             " bytes of data but the tensor needs " +
                             llvm::Twine(expected));
  void *data = model.stateTensor(state, info->name);
  if (!data)
    return diagnostics.error("--input " + name + ": " + model.lastError());
  std::memcpy(data, contents.data(), expected);
  if (std::optional<BadValue> bad = findBadValue(*info, data))
    return diagnostics.error("--input " + name + ": '" + path + "' holds " +
                             bad->value + " at element " +
                             llvm::Twine(bad->element) + bad->reason);
  return 0;
}

DataStreams::DataStreams(llvm::ArrayRef<std::string> specs,
                         llvm::ArrayRef<std::string> inputs, uint64_t seed,
                         const Diagnostics &diagnostics)
    : specs(specs), inputs(inputs),
      diagnostics(diagnostics), random{seed ^ 0x5EEDDA7Aull} {}

int DataStreams::open(const Model &model) {
  for (StringRef spec : specs)
    if (addSource(model, spec) != 0)
      return 1;
  const Source &first = sources.front();
  for (const Source &source : sources) {
    if (source.samples != first.samples)
      return diagnostics.error(llvm::Twine("--data: '") + first.info->name +
                               "' has " + llvm::Twine(first.samples) +
                               " samples but '" + source.info->name + "' has " +
                               llvm::Twine(source.samples) +
                               " (inputs and labels go together)");
    if (source.info->shape[0] != first.info->shape[0])
      return diagnostics.error(llvm::Twine("--data: '") + first.info->name +
                               "' takes " + llvm::Twine(first.info->shape[0]) +
                               " samples per step but '" + source.info->name +
                               "' takes " + llvm::Twine(source.info->shape[0]));
  }
  batch = first.info->shape[0];
  order = amp::SampleOrder(first.samples);
  if (first.samples < batch * ranks)
    return diagnostics.error(
        "--data: " + llvm::Twine(first.samples) +
        " samples are fewer than one batch of " + llvm::Twine(batch) +
        (ranks > 1 ? " on each of " + llvm::Twine(ranks) + " ranks"
                   : llvm::Twine()));
  return 0;
}

int DataStreams::fill(const Model &model, amp_state *state) {
  if (!started || next + batch * ranks > int64_t(order.size()))
    newEpoch();
  int64_t first = next + batch * rank;
  for (const Source &source : sources) {
    auto *data =
        static_cast<char *>(model.stateTensor(state, source.info->name));
    if (!data)
      return diagnostics.error("--data " + llvm::Twine(source.info->name) +
                               ": " + model.lastError());
    for (int64_t row = 0; row < batch; ++row)
      std::memcpy(data + row * source.sampleBytes,
                  source.sample(order(first + row)).data(), source.sampleBytes);
    if (std::optional<BadValue> bad = findBadValue(*source.info, data)) {
      int64_t perSample = source.info->num_elements / batch;
      auto [file, row] = source.locate(order(first + bad->element / perSample));
      return diagnostics.error(
          "--data " + llvm::Twine(source.info->name) + ": '" + file->path +
          "' sample " + llvm::Twine(row) + " holds " + bad->value +
          " at element " + llvm::Twine(bad->element % perSample) + bad->reason);
    }
  }
  next += batch * ranks;
  return 0;
}

void DataStreams::describe(RunRecord &record) const {
  record.dataCount = uint32_t(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    const Source &source = sources[i];
    uint64_t bytes = 0;
    bool whole =
        !__builtin_mul_overflow(uint64_t(source.samples),
                                uint64_t(source.sampleBytes), &bytes) &&
        bytes <= amp::RunRecord::kWholeDataBytes;
    uint64_t sizes[] = {uint64_t(source.samples), source.sampleBytes};
    uint64_t hash = amp::hashBytes(sizes, sizeof(sizes));
    auto hashRow = [&](int64_t index) {
      StringRef row = source.sample(index);
      hash = amp::hashBytes(row.data(), row.size(), hash);
    };
    if (whole) {
      for (const File &file : source.files)
        for (size_t offset = 0; offset < file.data.size();
             offset += source.sampleBytes)
          hash = amp::hashBytes(file.data.data() + offset, source.sampleBytes,
                                hash);
    } else {
      constexpr int64_t rows = amp::RunRecord::kSampledRows;
      for (int64_t k = 0; k < rows; ++k)
        hashRow(int64_t((unsigned __int128)k * source.samples / rows));
      hashRow(source.samples - 1);
    }
    if (i >= size_t(amp::RunRecord::kMaxData)) {
      record.moreData =
          amp::hashBytes(source.info->name, std::strlen(source.info->name),
                         record.moreData ^ hash);
      continue;
    }
    amp::RecordData &entry = record.data[i];
    entry.name.set(source.info->name);
    entry.paths.set(source.path);
    entry.samples = source.samples;
    entry.contents = hash;
    entry.sampled = !whole;
  }
}

std::pair<const DataStreams::File *, int64_t>
DataStreams::Source::locate(int64_t index) const {
  auto it = llvm::upper_bound(
      files, index, [](int64_t i, const File &f) { return i < f.firstSample; });
  const File *file = &*std::prev(it);
  return {file, index - file->firstSample};
}

StringRef DataStreams::Source::sample(int64_t index) const {
  auto [file, row] = locate(index);
  return file->data.substr(row * sampleBytes, sampleBytes);
}

int DataStreams::listFiles(StringRef name, StringRef path,
                           std::vector<std::string> &files) const {
  if (!llvm::sys::fs::is_directory(path)) {
    llvm::SmallVector<StringRef> parts;
    path.split(parts, ',');
    for (StringRef part : parts)
      files.push_back(part.str());
    return 0;
  }
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end;
       it.increment(ec))
    if (StringRef(it->path()).ends_with(".npy"))
      files.push_back(it->path());
  if (ec)
    return diagnostics.error("--data " + name + ": cannot list '" + path +
                             "': " + ec.message());
  if (files.empty())
    return diagnostics.error("--data " + name + ": '" + path +
                             "' holds no .npy file");
  llvm::sort(files);
  return 0;
}

int DataStreams::addSource(const Model &model, StringRef spec) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return diagnostics.error("--data expects NAME=PATH, got '" + spec + "'");
  Source source;
  source.path = path.str();
  source.info = findInput(model, "data", name, diagnostics);
  if (!source.info)
    return 1;
  for (const Source &other : sources)
    if (other.info == source.info)
      return diagnostics.error("--data " + name + " is given twice");
  if (llvm::is_contained(
          llvm::map_range(inputs,
                          [](const std::string &input) {
                            return StringRef(input).split('=').first;
                          }),
          name))
    return diagnostics.error("--data " + name + ": --input feeds it too");
  if (source.info->rank == 0)
    return diagnostics.error("--data " + name + ": '" + name +
                             "' is a scalar, without a batch dimension");
  source.sampleBytes = elementBytes(source.info->dtype) *
                       (source.info->num_elements / source.info->shape[0]);
  std::vector<std::string> paths;
  if (listFiles(name, path, paths) != 0)
    return 1;
  for (const std::string &file : paths)
    if (addFile(name, file, source) != 0)
      return 1;
  sources.push_back(std::move(source));
  return 0;
}

int DataStreams::addFile(StringRef name, const std::string &path,
                         Source &source) {
  // A regular file only (amp::InputFile), of the size it had when opened.
  amp::InputFile file;
  std::string reason;
  if (!file.open(path, reason))
    return diagnostics.error("--data " + name + ": cannot read '" + path +
                             "': " + reason);
  // Mapped (LLVM maps all but small files): datasets larger than memory.
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      file.fd(), path, file.size(), /*RequiresNullTerminator=*/false);
  if (!buffer)
    return diagnostics.error("--data " + name + ": cannot read '" + path +
                             "': " + buffer.getError().message());
  std::string error;
  int64_t samples = 0;
  std::optional<StringRef> data =
      npyData((*buffer)->getBuffer(), *source.info, error, &samples);
  if (!data)
    return diagnostics.error("--data " + name + ": '" + path + "' " + error);
  size_t expected = 0;
  if (__builtin_mul_overflow(size_t(samples), source.sampleBytes, &expected) ||
      data->size() != expected)
    return diagnostics.error("--data " + name + ": '" + path + "' holds " +
                             llvm::Twine(data->size()) +
                             " bytes of data but its " + llvm::Twine(samples) +
                             " samples need " + llvm::Twine(expected));
  source.files.push_back({path, std::move(*buffer), *data, source.samples});
  source.samples += samples;
  return 0;
}
