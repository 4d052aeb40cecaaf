//===- Device.cpp - memory, error details and the profile -----------------===//
//
// State lives in heap objects that are never destroyed: model libraries free
// memory and unload modules from global destructors, which may run after
// this library's own.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"

#include "amp/Support/OutputFile.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include <unistd.h>

using namespace amp::emulator;

namespace {

struct Allocation {
  char *base;        // what malloc returned
  size_t capacity;   // what cuMemAlloc was asked for
  size_t userBytes;  // in use: the capacity, or what the runtime's pool gave
  size_t totalBytes; // red zone + capacity + tail red zone
  uint64_t number;   // in allocation order, from 1
  bool freed;        // back in the runtime's pool
};

struct Memory {
  std::mutex mutex;
  /// By the address handed out (base + kRedZoneBytes).
  std::map<uintptr_t, Allocation> live;
  uint64_t allocations = 0;
  size_t inUse = 0;
};

Memory &memory() {
  static Memory *instance = new Memory();
  return *instance;
}

struct Details {
  std::mutex mutex;
  std::map<std::pair<bool, int>, std::string> byCode;
};

Details &details() {
  static Details *instance = new Details();
  return *instance;
}

/// Red zone after `capacity` bytes: at least kRedZoneBytes, up to the next
/// alignment.
size_t tailBytes(size_t capacity) {
  size_t rounded =
      (capacity + kRedZoneBytes - 1) / kRedZoneBytes * kRedZoneBytes;
  return rounded - capacity + kRedZoneBytes;
}

char *userStart(const Allocation &a) { return a.base + kRedZoneBytes; }

/// The red zone after the bytes in use, to the end of the allocation.
size_t tailBytes(const Allocation &a) {
  return a.totalBytes - kRedZoneBytes - a.userBytes;
}

/// The allocation holding `address`, or null; the caller holds the mutex.
const Allocation *find(Memory &m, uintptr_t address) {
  auto it = m.live.upper_bound(address);
  if (it == m.live.begin())
    return nullptr;
  --it;
  const Allocation &a = it->second;
  // A zero-byte allocation still owns its first address.
  size_t span = a.capacity ? a.capacity : 1;
  return address - it->first < span ? &a : nullptr;
}

std::string hex(uintptr_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", (unsigned long long)value);
  return buffer;
}

std::string describe(const Allocation &a) {
  return "allocation #" + std::to_string(a.number) + " (" +
         (a.freed ? std::string("freed, ")
                  : std::to_string(a.userBytes) + " bytes ") +
         "at " + hex(reinterpret_cast<uintptr_t>(userStart(a))) + ")";
}

/// The first byte of [from, from + bytes) that is not kRedZoneByte, or -1.
/// Every launch checks every red zone (blocks back in the pool are red zone
/// all through): memcmp against a pattern finds the intact ones fast.
long long firstDamaged(const char *from, size_t bytes) {
  static const auto pattern = [] {
    std::vector<char> p(4096);
    std::memset(p.data(), kRedZoneByte, p.size());
    return p;
  }();
  for (size_t chunk = 0; chunk < bytes; chunk += pattern.size()) {
    size_t length = std::min(pattern.size(), bytes - chunk);
    if (std::memcmp(from + chunk, pattern.data(), length) == 0)
      continue;
    for (size_t i = chunk; i < chunk + length; ++i)
      if (static_cast<unsigned char>(from[i]) != kRedZoneByte)
        return static_cast<long long>(i);
  }
  return -1;
}

} // namespace

int amp::emulator::setDetail(bool blas, int code, const std::string &detail) {
  Details &d = details();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.byCode[{blas, code}] = detail;
  return code;
}

const char *amp::emulator::detailFor(bool blas, int code) {
  Details &d = details();
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.byCode.find({blas, code});
  return it == d.byCode.end() ? nullptr : it->second.c_str();
}

void *amp::emulator::allocate(size_t bytes) {
  size_t total = kRedZoneBytes + bytes + tailBytes(bytes);
  char *base = static_cast<char *>(std::aligned_alloc(kRedZoneBytes, total));
  if (!base)
    return nullptr;
  std::memset(base, kRedZoneByte, kRedZoneBytes);
  std::memset(base + kRedZoneBytes, kFreshByte, bytes);
  std::memset(base + kRedZoneBytes + bytes, kRedZoneByte, tailBytes(bytes));
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  Allocation a{base, bytes, bytes, total, ++m.allocations, false};
  m.live.emplace(reinterpret_cast<uintptr_t>(userStart(a)), a);
  m.inUse += bytes;
  return userStart(a);
}

bool amp::emulator::release(void *pointer) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.live.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == m.live.end())
    return false;
  m.inUse -= it->second.capacity;
  std::free(it->second.base);
  m.live.erase(it);
  return true;
}

bool amp::emulator::isDeviceRange(const void *pointer, size_t bytes) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  const Allocation *a = find(m, address);
  if (!a || a->freed)
    return false;
  size_t offset = address - reinterpret_cast<uintptr_t>(userStart(*a));
  return offset <= a->userBytes && bytes <= a->userBytes - offset;
}

bool amp::emulator::isDevicePointer(const void *pointer) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  return find(m, reinterpret_cast<uintptr_t>(pointer)) != nullptr;
}

std::string amp::emulator::describeAllocation(const void *pointer) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  const Allocation *a = find(m, reinterpret_cast<uintptr_t>(pointer));
  return a ? describe(*a) : "no allocation";
}

std::string amp::emulator::checkRedZones() {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  for (auto &entry : m.live) {
    const Allocation &a = entry.second;
    long long before = firstDamaged(a.base, kRedZoneBytes);
    const char *tail = userStart(a) + a.userBytes;
    long long after = firstDamaged(tail, tailBytes(a));
    if (before < 0 && after < 0)
      continue;
    std::string where =
        before >= 0 ? "offset -" + std::to_string(kRedZoneBytes - before) +
                          " (before its start)"
                    : "offset " + std::to_string(a.userBytes + after) + " (" +
                          std::to_string(after) + " bytes past its end)";
    std::memset(a.base, kRedZoneByte, kRedZoneBytes);
    std::memset(const_cast<char *>(tail), kRedZoneByte, tailBytes(a));
    return "wrote out of bounds of " + describe(a) + ": its red zone at " +
           where + " was changed";
  }
  return "";
}

bool amp::emulator::markInUse(void *pointer, size_t bytes, bool freed) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.live.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == m.live.end())
    return false;
  Allocation &a = it->second;
  if (bytes > a.capacity)
    return false;
  a.userBytes = freed ? 0 : bytes;
  a.freed = freed;
  std::memset(userStart(a), kFreshByte, a.userBytes);
  std::memset(userStart(a) + a.userBytes, kRedZoneByte, tailBytes(a));
  return true;
}

size_t amp::emulator::bytesInUse() {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.inUse;
}

//===----------------------------------------------------------------------===//
// Profile
//===----------------------------------------------------------------------===//

namespace {

struct Profile {
  std::mutex mutex;
  std::vector<std::string> lines;
  /// Set by ampEmuProfileStart (amp-run --profile): record without a file.
  std::atomic<bool> started{false};
};

Profile &profile() {
  static Profile *instance = new Profile();
  return *instance;
}

const char *profilePath() {
  const char *path = std::getenv("AMP_EMULATOR_PROFILE");
  return path && *path ? path : nullptr;
}

/// Writes the profile when the process exits (the device has no "end").
struct ProfileWriter {
  ~ProfileWriter() {
    const char *path = profilePath();
    if (!path)
      return;
    Profile &p = profile();
    std::lock_guard<std::mutex> lock(p.mutex);
    amp::OutputFile output;
    std::string error;
    if (output.open(path, error)) {
      std::error_code ec;
      int fd = output.openForWriting(ec);
      FILE *stream = fd < 0 ? nullptr : ::fdopen(fd, "wb");
      bool written = stream != nullptr;
      for (const std::string &line : p.lines)
        written = written && std::fprintf(stream, "%s\n", line.c_str()) >= 0;
      if (stream)
        written = std::fclose(stream) == 0 && written;
      else if (fd >= 0)
        ::close(fd);
      if (!written)
        error = "cannot write " + std::string(path);
      else
        output.commit(error);
    }
    if (!error.empty())
      std::fprintf(stderr, "amp emulated device: AMP_EMULATOR_PROFILE: %s\n",
                   error.c_str());
  }
} profileWriter;

} // namespace

bool amp::emulator::profiling() {
  return profile().started.load(std::memory_order_relaxed) ||
         profilePath() != nullptr;
}

AMP_EMU_EXPORT uint64_t ampEmuProfileStart(void) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.started = true;
  return p.lines.size();
}

AMP_EMU_EXPORT void ampEmuProfileForEach(uint64_t first,
                                         void (*each)(const char *line,
                                                      void *context),
                                         void *context) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (size_t i = first; i < p.lines.size(); ++i)
    each(p.lines[i].c_str(), context);
}

void amp::emulator::recordProfileLine(std::string line) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.lines.push_back(std::move(line));
}

std::string amp::emulator::jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out + "\"";
}
