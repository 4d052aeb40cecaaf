//===- LibraryFile.cpp - check a model library before dlopen --------------===//

#include "LibraryFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <vector>

using namespace llvm;
using namespace llvm::ELF;

namespace {
#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr const char *kHostName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr const char *kHostName = "AArch64";
#else
constexpr uint16_t kHostMachine = EM_NONE; // not checked
constexpr const char *kHostName = "this host";
#endif

/// The bytes [offset, offset + count) of a file, read with pread: mapping the
/// file could fault on the very truncation we look for.
class FileReader {
public:
  FileReader(sys::fs::file_t file, uint64_t size) : size(size), file(file) {}

  /// Whether [offset, offset + count) lies inside the file.
  bool contains(uint64_t offset, uint64_t count) const {
    return offset <= size && count <= size - offset;
  }

  /// Reads `count` records of `T` at `offset`; false if they are not all in
  /// the file or the read fails.
  template <typename T>
  bool read(uint64_t offset, uint64_t count, std::vector<T> &records) {
    if (count > size / sizeof(T) || !contains(offset, count * sizeof(T)))
      return false;
    records.resize(count);
    MutableArrayRef<char> buffer(reinterpret_cast<char *>(records.data()),
                                 count * sizeof(T));
    while (!buffer.empty()) {
      Expected<size_t> got = sys::fs::readNativeFileSlice(file, buffer, offset);
      if (!got || *got == 0) {
        consumeError(got.takeError());
        return false;
      }
      buffer = buffer.drop_front(*got);
      offset += *got;
    }
    return true;
  }

  const uint64_t size;

private:
  sys::fs::file_t file;
};

std::string range(uint64_t offset, uint64_t count) {
  return "bytes " + std::to_string(offset) + ".." +
         std::to_string(offset + count);
}

std::string pastTheEnd(const std::string &what, uint64_t offset, uint64_t count,
                       uint64_t size) {
  return "it is truncated or corrupt: " + what + " (" + range(offset, count) +
         ") ends past the end of the file (" + std::to_string(size) + " bytes)";
}

/// What is wrong with the ELF header, or the empty string.
std::string checkHeader(const Elf64_Ehdr &header) {
  const unsigned char *ident = header.e_ident;
  if (ident[EI_CLASS] != ELFCLASS64)
    return "it is a 32-bit ELF file; amp-run loads 64-bit libraries";
  if (ident[EI_DATA] != ELFDATA2LSB)
    return "it is a big-endian ELF file; this host is little-endian";
  if (header.e_type != ET_DYN)
    return "it is an ELF file of type " + std::to_string(header.e_type) +
           ", not a shared library (type " + std::to_string(ET_DYN) + ")";
  if (kHostMachine != EM_NONE && header.e_machine != kHostMachine)
    return "it is built for ELF machine " + std::to_string(header.e_machine) +
           ", not for " + kHostName + " (" + std::to_string(kHostMachine) + ")";
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0)
    return "it is corrupt: its ELF header announces " +
           std::to_string(header.e_phnum) + " program headers of " +
           std::to_string(header.e_phentsize) + " bytes";
  if (header.e_shnum != 0 && header.e_shentsize != sizeof(Elf64_Shdr))
    return "it is corrupt: its section headers have " +
           std::to_string(header.e_shentsize) + " bytes, not " +
           std::to_string(sizeof(Elf64_Shdr));
  return "";
}

/// What is wrong with the segments, or the empty string.
std::string checkSegments(FileReader &file, const Elf64_Ehdr &header) {
  std::vector<Elf64_Phdr> segments;
  if (!file.read(header.e_phoff, header.e_phnum, segments))
    return pastTheEnd("its program header table", header.e_phoff,
                      uint64_t(header.e_phnum) * sizeof(Elf64_Phdr), file.size);
  for (auto [index, segment] : llvm::enumerate(segments)) {
    std::string what =
        (segment.p_type == PT_LOAD ? "loadable segment #" : "segment #") +
        std::to_string(index);
    if (!file.contains(segment.p_offset, segment.p_filesz))
      return pastTheEnd(what, segment.p_offset, segment.p_filesz, file.size);
    if (segment.p_type == PT_LOAD && segment.p_filesz > segment.p_memsz)
      return "it is corrupt: " + what + " holds more bytes in the file (" +
             std::to_string(segment.p_filesz) + ") than in memory (" +
             std::to_string(segment.p_memsz) + ")";
  }
  return "";
}

/// What is wrong with the sections, or the empty string.
std::string checkSections(FileReader &file, const Elf64_Ehdr &header) {
  std::vector<Elf64_Shdr> sections;
  if (header.e_shnum == 0)
    return "";
  if (!file.read(header.e_shoff, header.e_shnum, sections))
    return pastTheEnd("its section header table", header.e_shoff,
                      uint64_t(header.e_shnum) * sizeof(Elf64_Shdr), file.size);
  for (auto [index, section] : llvm::enumerate(sections))
    if (section.sh_type != SHT_NOBITS &&
        !file.contains(section.sh_offset, section.sh_size))
      return pastTheEnd("section #" + std::to_string(index), section.sh_offset,
                        section.sh_size, file.size);
  return "";
}
} // namespace

std::string amp::checkSharedLibrary(const std::string &path) {
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file)
    return toString(file.takeError());
  scope_exit closeFile([&] { sys::fs::closeFile(*file); });
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(*file, status))
    return ec.message();
  if (status.type() != sys::fs::file_type::regular_file)
    return "it is not a regular file";
  FileReader reader(*file, status.getSize());
  std::vector<Elf64_Ehdr> header;
  std::vector<char> magic;
  uint64_t magicBytes = std::min<uint64_t>(reader.size, 4);
  if (!reader.read(0, magicBytes, magic) ||
      !StringRef(ElfMagic).starts_with(StringRef(magic.data(), magicBytes)))
    return "it is not a shared library (it does not start with the ELF "
           "magic number)";
  if (!reader.read(0, 1, header))
    return pastTheEnd("its ELF header", 0, sizeof(Elf64_Ehdr), reader.size);
  std::string error = checkHeader(header.front());
  if (error.empty())
    error = checkSegments(reader, header.front());
  if (error.empty())
    error = checkSections(reader, header.front());
  return error;
}
