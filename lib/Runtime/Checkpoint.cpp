//===- Checkpoint.cpp - the checkpoint format
//------------------------------===//
//
// Writing and reading checkpoints (Checkpoint.h, docs/Driver.md
// "Checkpoints"). Reading takes the whole file into memory and checks it
// (structure, checksum, then every record against the model) before the
// state is touched.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"

#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/OutputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace amp::runtime;

namespace {
constexpr char kCheckpointMagic[8] = {'A', 'M', 'P', 'S', 'T', 'A', 'T', 'E'};
/// Version 2 is version 1 followed by the CRC-32 of everything before it;
/// both are read.
constexpr uint32_t kCheckpointVersion = 2;
constexpr uint32_t kMaxNameLength = 4096;
constexpr int32_t kMaxRank = 16;

/// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), eight bytes
/// at a time: a checkpoint of gigabytes is checked at memory speed.
struct Crc32Tables {
  uint32_t table[8][256];
};

constexpr Crc32Tables makeCrc32Tables() {
  Crc32Tables tables{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit)
      crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    tables.table[0][i] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t previous = tables.table[k - 1][i];
      tables.table[k][i] = (previous >> 8) ^ tables.table[0][previous & 0xff];
    }
  return tables;
}

constexpr Crc32Tables kCrc32 = makeCrc32Tables();

/// The CRC-32 of `size` bytes following those whose CRC-32 is `crc`.
uint32_t crc32(uint32_t crc, const void *data, size_t size) {
  const auto &t = kCrc32.table;
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, bytes += 8) {
    uint32_t low, high;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + 4, 4);
    low ^= crc;
    crc = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^
          t[5][(low >> 16) & 0xff] ^ t[4][low >> 24] ^ t[3][high & 0xff] ^
          t[2][(high >> 8) & 0xff] ^ t[1][(high >> 16) & 0xff] ^
          t[0][high >> 24];
  }
  for (; size; --size, ++bytes)
    crc = t[0][(crc ^ *bytes) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string cannotWrite(const std::string &path, int error) {
  return "cannot write '" + path + "': " + std::strerror(error);
}

/// Writes a checkpoint's fields, keeping the CRC-32 of what it wrote and
/// the errno of the first failure.
struct CheckpointWriter {
  FILE *file;
  uint32_t crc = 0;
  int error = 0;

  void bytes(const void *data, size_t size) {
    errno = 0;
    if (error || size == 0)
      return;
    if (std::fwrite(data, 1, size, file) != size) {
      error = errno ? errno : EIO;
      return;
    }
    crc = crc32(crc, data, size);
  }
  template <typename T> void value(const T &value) { bytes(&value, sizeof(T)); }
};

void writeCheckpoint(const amp_state &state, CheckpointWriter &writer) {
  uint32_t count = 0;
  for (int32_t i = 0; i < model().num_tensors; ++i)
    count += isCheckpointed(model().tensors[i]);
  writer.bytes(kCheckpointMagic, 8);
  writer.value(kCheckpointVersion);
  writer.value(count);
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    if (!isCheckpointed(info))
      continue;
    uint32_t nameLength = std::strlen(info.name);
    uint64_t bytes = byteSize(info);
    writer.value(nameLength);
    writer.bytes(info.name, nameLength);
    writer.value(info.dtype);
    writer.value(info.rank);
    writer.bytes(info.shape, sizeof(int64_t) * info.rank);
    writer.value(bytes);
    writer.bytes(state.tensors[i].data.get(), bytes);
  }
  uint32_t crc = writer.crc;
  writer.value(crc);
}

/// Flushes and closes `file`, first making a regular file durable (a
/// checkpoint renamed over the last one must not be empty after a crash);
/// returns the errno of the first failure, or 0.
int closeDurably(FILE *file, bool durable) {
  int error = std::fflush(file) != 0 ? errno : 0;
  if (!error && durable && ::fsync(::fileno(file)) != 0)
    error = errno;
  if (std::fclose(file) != 0 && !error)
    error = errno;
  return error;
}

/// Memory from malloc, freed with free.
using MallocBytes = std::unique_ptr<char, void (*)(void *)>;

/// The whole contents of the regular file `path` (amp::InputFile: a
/// device, a FIFO or a directory is refused unread), refused unread when it
/// is far larger than the `limit` bytes a checkpoint can have; false with
/// the reason in `error`.
bool readWholeFile(const char *path, uint64_t limit, MallocBytes &contents,
                   size_t &size, std::string &error) {
  amp::InputFile file;
  if (!file.open(path, error))
    return false;
  // A few bytes too many are read, for the parser's exact message.
  constexpr uint64_t kSlack = 1 << 20;
  if (file.size() > limit + kSlack) {
    error = "it has " + std::to_string(file.size()) +
            " bytes, far more than the " + std::to_string(limit) +
            " a checkpoint of this model can have";
    return false;
  }
  size = static_cast<size_t>(file.size());
  // One byte more: malloc(0) may return null.
  contents.reset(static_cast<char *>(std::malloc(size + 1)));
  if (!contents) {
    error = "not enough memory to read it";
    return false;
  }
  return file.read(contents.get(), error);
}

/// The most bytes a checkpoint of this model can have.
uint64_t maxCheckpointSize() {
  uint64_t size = 8 + 4 + 4 + 4;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    size +=
        4 + std::strlen(info.name) + 4 + 4 + 8 * info.rank + 8 + byteSize(info);
  }
  return size;
}

/// One tensor record of a checkpoint, pointing into the file's bytes.
struct CheckpointTensor {
  std::string name;
  int32_t dtype = 0, rank = 0;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
  const char *data = nullptr;
};

/// Reads the records of a checkpoint held in memory and checks that they
/// are well formed and intact, without looking at the model. Every problem
/// is an error naming the file: a truncation at any offset, a bit flip
/// anywhere (version 2 carries a CRC-32), trailing bytes.
class CheckpointParser {
public:
  CheckpointParser(const std::string &path, const char *data, size_t size)
      : path(path), data(data), size(size) {}

  bool parse(std::vector<CheckpointTensor> &tensors) {
    if (size < 8 || std::memcmp(data, kCheckpointMagic, 8) != 0) {
      if (size < 8 && std::memcmp(data, kCheckpointMagic, size) == 0)
        return truncated("its header");
      return error("is not an amp checkpoint");
    }
    offset = 8;
    uint32_t version = 0, count = 0;
    if (!read(version))
      return truncated("its version");
    if (version != 1 && version != 2)
      return error("has checkpoint version " + std::to_string(version) +
                   "; this runtime reads versions 1 and 2");
    if (!read(count))
      return truncated("its tensor count");
    for (uint32_t k = 0; k < count; ++k) {
      tensors.emplace_back();
      if (!parseTensor(k, tensors.back()))
        return false;
    }
    size_t end = offset;
    uint32_t stored = 0;
    if (version == 2 && !read(stored))
      return truncated("its checksum");
    if (offset != size)
      return error("is corrupt: " + std::to_string(size - offset) +
                   " bytes follow its last tensor");
    if (version == 2 && crc32(0, data, end) != stored)
      return error("is corrupt: its contents do not match their checksum");
    return true;
  }

private:
  bool error(const std::string &reason) {
    fail("'" + path + "' " + reason);
    return false;
  }
  bool truncated(const std::string &what) {
    return error("is truncated (or corrupt): " + what + " would end past " +
                 "the end of the file, at byte " + std::to_string(size));
  }
  bool bytes(size_t count, const char *&at) {
    if (size - offset < count)
      return false;
    at = data + offset;
    offset += count;
    return true;
  }
  template <typename T> bool read(T &value) {
    const char *at = nullptr;
    if (!bytes(sizeof(T), at))
      return false;
    std::memcpy(&value, at, sizeof(T));
    return true;
  }

  bool parseTensor(uint32_t k, CheckpointTensor &tensor) {
    std::string which = "tensor #" + std::to_string(k);
    uint64_t elements = 1;
    return parseName(which, tensor) && parseType(which, tensor) &&
           parseShape(which, tensor, elements) &&
           parseData(which, tensor, elements);
  }

  /// The name; `which` then names the tensor.
  bool parseName(std::string &which, CheckpointTensor &tensor) {
    uint32_t nameLength = 0;
    const char *name = nullptr;
    if (!read(nameLength))
      return truncated(which);
    if (nameLength > kMaxNameLength)
      return error("is corrupt: " + which + " has a name of " +
                   std::to_string(nameLength) + " bytes");
    if (!bytes(nameLength, name))
      return truncated(which);
    tensor.name.assign(name, nameLength);
    which += " ('" + tensor.name + "')";
    return true;
  }

  bool parseType(const std::string &which, CheckpointTensor &tensor) {
    if (!read(tensor.dtype) || !read(tensor.rank))
      return truncated(which);
    if (tensor.dtype < AMP_DTYPE_F32 || tensor.dtype > AMP_DTYPE_I1 ||
        tensor.rank < 0 || tensor.rank > kMaxRank)
      return error("is corrupt: " + which + " has dtype " +
                   std::to_string(tensor.dtype) + " and rank " +
                   std::to_string(tensor.rank));
    return true;
  }

  /// The dimensions, and their product in `elements`.
  bool parseShape(const std::string &which, CheckpointTensor &tensor,
                  uint64_t &elements) {
    tensor.shape.resize(tensor.rank);
    for (int64_t &dim : tensor.shape)
      if (!read(dim))
        return truncated(which);
      else if (dim < 0 || __builtin_mul_overflow(
                              elements, static_cast<uint64_t>(dim), &elements))
        return error("is corrupt: " + which + " has shape " +
                     shapeString(tensor.rank, tensor.shape.data()));
    return true;
  }

  /// The byte count, which the shape and dtype fix, and the bytes.
  bool parseData(const std::string &which, CheckpointTensor &tensor,
                 uint64_t elements) {
    uint64_t expected = 0;
    if (!read(tensor.bytes))
      return truncated(which);
    if (__builtin_mul_overflow(elements, amp::elementBytes(tensor.dtype),
                               &expected) ||
        tensor.bytes != expected)
      return error("is corrupt: " + which + " has " +
                   std::to_string(tensor.bytes) + " bytes but its shape " +
                   shapeString(tensor.rank, tensor.shape.data()) + " needs " +
                   std::to_string(expected));
    if (!bytes(tensor.bytes, tensor.data))
      return truncated(which + "'s data");
    return true;
  }

  const std::string &path;
  const char *data;
  size_t size;
  size_t offset = 0;
};

/// Matches checkpoint records to the model's state tensors by name, dtype
/// and shape; `indices` gets each record's tensor index.
int32_t matchCheckpoint(const std::string &path,
                        const std::vector<CheckpointTensor> &records,
                        std::vector<int32_t> &indices,
                        std::vector<bool> &seen) {
  for (const CheckpointTensor &record : records) {
    int32_t index = findTensor(record.name.c_str());
    if (index < 0 || !isCheckpointed(model().tensors[index]))
      return fail("checkpoint tensor '" + record.name +
                  "' is not part of this model's state (is '" + path +
                  "' a checkpoint of another model?)");
    if (seen[index])
      return fail("'" + path + "' is corrupt: it holds tensor '" + record.name +
                  "' twice");
    const amp_tensor_info &info = model().tensors[index];
    if (record.dtype != info.dtype || record.rank != info.rank ||
        !std::equal(record.shape.begin(), record.shape.end(), info.shape))
      return fail("checkpoint tensor '" + record.name + "' has shape " +
                  shapeString(record.rank, record.shape.data()) +
                  " and dtype " + amp::dtypeName(record.dtype) +
                  " but the model expects " +
                  shapeString(info.rank, info.shape) + " and dtype " +
                  amp::dtypeName(info.dtype) + " (in '" + path + "')");
    seen[index] = true;
    indices.push_back(index);
  }
  // A copy of a master weight can be recomputed (a checkpoint from a run
  // without master weights); anything else missing is an error.
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && !seen[i] &&
        model().tensors[i].init != AMP_INIT_COPY_OF)
      return fail("checkpoint '" + path + "' lacks tensor '" +
                  model().tensors[i].name + "'");
  return 0;
}

/// A stream on the file amp::OutputFile writes to, or null with errno set.
FILE *openForWriting(const amp::OutputFile &output) {
  std::error_code ec;
  int fd = output.openForWriting(ec);
  if (fd < 0)
    return nullptr;
  FILE *file = ::fdopen(fd, "wb");
  if (!file) {
    int failure = errno;
    ::close(fd);
    errno = failure;
  }
  return file;
}
} // namespace

int32_t amp::runtime::saveCheckpoint(amp_state &state, const char *path) {
  // Saving leaves the state as it is; bringing the host copies up to date
  // with the device only refreshes a cache.
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && state.syncToHost(i) != 0)
      return 1;
  amp::OutputFile output;
  std::string error;
  if (!output.open(path, error))
    return fail(error);
  FILE *file = openForWriting(output);
  if (!file)
    return fail(cannotWrite(path, errno));
  CheckpointWriter writer{file};
  writeCheckpoint(state, writer);
  int closeError = closeDurably(file, !output.isDirect());
  if (writer.error || closeError)
    return fail(cannotWrite(path, writer.error ? writer.error : closeError));
  return output.commit(error) ? 0 : fail(error);
}

int32_t amp::runtime::loadCheckpoint(amp_state &state, const char *path) {
  MallocBytes contents(nullptr, &std::free);
  size_t size = 0;
  std::string reason;
  if (!readWholeFile(path, maxCheckpointSize(), contents, size, reason))
    return fail(std::string("cannot read checkpoint '") + path +
                "': " + reason);
  // Check everything before changing the state: a bad file changes nothing.
  std::vector<CheckpointTensor> records;
  if (!CheckpointParser(path, contents.get(), size).parse(records))
    return 1;
  std::vector<int32_t> indices;
  std::vector<bool> seen(model().num_tensors, false);
  if (matchCheckpoint(path, records, indices, seen))
    return 1;
  for (size_t k = 0; k < records.size(); ++k) {
    std::memcpy(state.tensors[indices[k]].data.get(), records[k].data,
                records[k].bytes);
    state.markWrittenOnHost(indices[k]);
  }
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (model().tensors[i].init == AMP_INIT_COPY_OF && !seen[i] &&
        state.initializeCopy(i) != 0)
      return 1;
  return 0;
}
