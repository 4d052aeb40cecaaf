//===- mutation-driver.cpp - deterministic driver for amp's fuzz targets --===//
//
// A main() for any libFuzzer target (LLVMFuzzerTestOneInput, and optionally
// LLVMFuzzerInitialize) that needs no libFuzzer: it runs every seed file,
// then a fixed, seeded set of mutations of each (truncations at every offset
// class, bit flips, interesting bytes, length fields set huge, deleted and
// duplicated ranges). The same command always runs the same inputs, so it
// suits CI and lit: it is bounded by the number of mutations, not by time.
// With a sanitizer build it reports memory errors as well as crashes.
//
// A crash, a sanitizer report or a hang (-timeout) saves the input to
// ARTIFACT_PREFIX + "crash-<seed>-<mutation>" and ends the process by the
// signal, so that the input can be kept as a regression test.
//
//   FUZZER [-runs=N] [-seed=N] [-timeout=S] [-max_len=N]
//          [-artifact_prefix=P] [target flags] FILE|DIR...
//
// -runs is the number of mutations per seed besides the truncations
// (default 200); -runs=0 runs the seeds only, as libFuzzer does. Flags
// this driver does not know are the target's.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/Numerics.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);
extern "C" __attribute__((weak)) void
__sanitizer_set_death_callback(void (*callback)(void));

namespace {

using Bytes = std::vector<uint8_t>;

struct Options {
  unsigned runs = 200;
  uint64_t seed = 1;
  unsigned timeout = 20;
  size_t maxLength = 1 << 20;
  std::string artifactPrefix = "./";
  std::vector<std::string> inputs;
};

//===----------------------------------------------------------------------===//
// The input being run, saved by the crash handlers
//===----------------------------------------------------------------------===//

const Bytes *current = nullptr;
char artifactPath[4096];
volatile sig_atomic_t saving = 0;

void writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n <= 0)
      return;
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void say(const char *text) { writeAll(2, text, std::strlen(text)); }

/// Saves the current input (async-signal-safe: only open/write/close).
void saveCurrentInput() {
  if (!current || saving)
    return;
  saving = 1;
  int fd = ::open(artifactPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    writeAll(fd, current->data(), current->size());
    ::close(fd);
    say("amp-fuzz: the failing input is saved as ");
    say(artifactPath);
    say("\n");
  }
}

void onFatalSignal(int signo) {
  if (signo == SIGALRM)
    say("amp-fuzz: timeout\n");
  saveCurrentInput();
  std::signal(signo == SIGALRM ? SIGABRT : signo, SIG_DFL);
  std::raise(signo == SIGALRM ? SIGABRT : signo);
}

void installHandlers() {
  static char stack[1 << 16];
  stack_t alternate{};
  alternate.ss_sp = stack;
  alternate.ss_size = sizeof(stack);
  sigaltstack(&alternate, nullptr);
  struct sigaction action {};
  action.sa_handler = onFatalSignal;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int signo : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGALRM})
    sigaction(signo, &action, nullptr);
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(saveCurrentInput);
}

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

/// amp's splitmix64 (the same stream everywhere), so runs are reproducible.
struct Random : amp::Random {
  size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
};

/// Prefix lengths to cut the seed at: every length up to 512, then the
/// lengths around each power of two and 64 evenly spaced ones.
std::vector<size_t> truncationLengths(size_t size) {
  std::vector<size_t> lengths;
  for (size_t n = 0; n < size && n <= 512; ++n)
    lengths.push_back(n);
  for (size_t p = 1024; p < size; p *= 2)
    for (size_t n : {p - 1, p, p + 1})
      lengths.push_back(n);
  for (size_t k = 1; size > 512 && k < 64; ++k)
    lengths.push_back(size * k / 64);
  for (size_t back = 1; back <= 8 && back <= size; ++back)
    lengths.push_back(size - back);
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

/// One mutation of `seed`, chosen by `random`.
Bytes mutate(const Bytes &seed, Random &random) {
  Bytes out = seed.empty() ? Bytes(1, 0) : seed;
  size_t at = random.below(out.size());
  switch (random.below(7)) {
  case 0: // one bit flipped
    out[at] ^= static_cast<uint8_t>(1u << random.below(8));
    break;
  case 1: { // an interesting byte
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x10};
    out[at] = values[random.below(sizeof(values))];
    break;
  }
  case 2: { // a little-endian length field set huge (4 or 8 bytes)
    static const uint64_t values[] = {
        0xffffffffffffffffull, 0x7fffffffffffffffull, 0x8000000000000000ull,
        0xffffffffull,         0x7fffffffull,         0x80000000ull};
    uint64_t value = values[random.below(6)];
    size_t width = random.below(2) ? 8 : 4;
    for (size_t k = 0; k < width && at + k < out.size(); ++k)
      out[at + k] = static_cast<uint8_t>(value >> (8 * k));
    break;
  }
  case 3: { // a varint (protobuf length or integer) made huge
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0x01};
    out.erase(out.begin() + at);
    out.insert(out.begin() + at, std::begin(huge), std::end(huge));
    break;
  }
  case 4: { // a range deleted
    size_t length = 1 + random.below(std::min<size_t>(64, out.size() - at));
    out.erase(out.begin() + at, out.begin() + at + length);
    break;
  }
  case 5: { // a range duplicated
    size_t length = 1 + random.below(std::min<size_t>(64, out.size() - at));
    Bytes copy(out.begin() + at, out.begin() + at + length);
    out.insert(out.begin() + random.below(out.size() + 1), copy.begin(),
               copy.end());
    break;
  }
  default: // several bits flipped
    for (int k = 0; k < 8; ++k)
      out[random.below(out.size())] ^=
          static_cast<uint8_t>(1u << random.below(8));
    break;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool readFile(const std::string &path, Bytes &bytes) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return false;
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  bool ok = !std::ferror(file);
  std::fclose(file);
  return ok;
}

/// The files named, with directories replaced by their regular files
/// (sorted, so the order of the runs is fixed).
bool collectInputs(const std::vector<std::string> &names,
                   std::vector<std::string> &files) {
  for (const std::string &name : names) {
    struct stat info;
    if (::stat(name.c_str(), &info) != 0) {
      std::fprintf(stderr, "amp-fuzz: cannot read '%s': %s\n", name.c_str(),
                   std::strerror(errno));
      return false;
    }
    if (!S_ISDIR(info.st_mode)) {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> entries;
    if (DIR *dir = ::opendir(name.c_str())) {
      while (dirent *entry = ::readdir(dir)) {
        std::string path = name + "/" + entry->d_name;
        if (entry->d_name[0] != '.' && ::stat(path.c_str(), &info) == 0 &&
            S_ISREG(info.st_mode))
          entries.push_back(path);
      }
      ::closedir(dir);
    }
    std::sort(entries.begin(), entries.end());
    files.insert(files.end(), entries.begin(), entries.end());
  }
  return true;
}

bool parseNumber(const char *text, uint64_t &value) {
  char *end = nullptr;
  errno = 0;
  value = std::strtoull(text, &end, 10);
  return errno == 0 && end != text && *end == '\0';
}

/// Reads the driver's flags; others are left to the target.
bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto flag = [&](const char *name, uint64_t &value) {
      std::string prefix = std::string("-") + name + "=";
      if (arg.compare(0, prefix.size(), prefix) != 0)
        return false;
      if (!parseNumber(arg.c_str() + prefix.size(), value)) {
        std::fprintf(stderr, "amp-fuzz: %s needs a number\n", arg.c_str());
        std::exit(2);
      }
      return true;
    };
    uint64_t number = 0;
    if (flag("runs", number))
      options.runs = static_cast<unsigned>(number);
    else if (flag("seed", number))
      options.seed = number;
    else if (flag("timeout", number))
      options.timeout = static_cast<unsigned>(number);
    else if (flag("max_len", number))
      options.maxLength = static_cast<size_t>(number);
    else if (arg.compare(0, 17, "-artifact_prefix=") == 0)
      options.artifactPrefix = arg.substr(17);
    else if (arg.empty() || arg[0] != '-')
      options.inputs.push_back(arg);
  }
  if (options.inputs.empty()) {
    std::fprintf(stderr,
                 "usage: %s [-runs=N] [-seed=N] [-timeout=S] "
                 "[-max_len=N] [-artifact_prefix=P] FILE|DIR...\n",
                 argv[0]);
    return false;
  }
  return true;
}

/// A file name for `path`'s base name, safe to build an artifact name from.
std::string baseName(const std::string &path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  for (char &c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-')
      c = '_';
  return base;
}

void runOne(const Bytes &input, const Options &options,
            const std::string &seedName, size_t index) {
  if (input.size() > options.maxLength)
    return;
  std::snprintf(artifactPath, sizeof(artifactPath), "%scrash-%s-%zu",
                options.artifactPrefix.c_str(), seedName.c_str(), index);
  current = &input;
  ::alarm(options.timeout);
  LLVMFuzzerTestOneInput(input.data(), input.size());
  ::alarm(0);
  current = nullptr;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options))
    return 2;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  if (!collectInputs(options.inputs, files))
    return 2;
  installHandlers();
  size_t total = 0;
  for (const std::string &file : files) {
    Bytes seed;
    if (!readFile(file, seed)) {
      std::fprintf(stderr, "amp-fuzz: cannot read '%s'\n", file.c_str());
      return 2;
    }
    std::string name = baseName(file);
    size_t index = 0;
    runOne(seed, options, name, index++);
    if (options.runs == 0) {
      total += index;
      continue;
    }
    for (size_t length : truncationLengths(seed.size()))
      runOne(Bytes(seed.begin(), seed.begin() + length), options, name,
             index++);
    // Each seed has its own stream, so adding a seed changes no other's.
    Random random{{options.seed}};
    for (char c : name)
      random.state = random.state * 131 + static_cast<uint8_t>(c);
    for (unsigned k = 0; k < options.runs; ++k)
      runOne(mutate(seed, random), options, name, index++);
    total += index;
  }
  std::printf("amp-fuzz: %zu inputs from %zu seeds, no crash\n", total,
              files.size());
  return 0;
}
