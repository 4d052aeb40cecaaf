//===- ELFFile.cpp - check a shared object before dlopen ------------------===//

#include "amp/Support/ELFFile.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

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

/// The bytes [offset, offset + count) of a file, read with pread.
class FileReader {
public:
  FileReader(int fd, uint64_t size) : size(size), fd(fd) {}

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
    char *buffer = reinterpret_cast<char *>(records.data());
    uint64_t left = count * sizeof(T);
    while (left > 0) {
      ssize_t got = pread(fd, buffer, left, off_t(offset));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return false;
      buffer += got;
      offset += uint64_t(got);
      left -= uint64_t(got);
    }
    return true;
  }

  const uint64_t size;

private:
  int fd;
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
    return "it is a 32-bit ELF file, not a 64-bit shared library";
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
  for (size_t index = 0; index < segments.size(); ++index) {
    const Elf64_Phdr &segment = segments[index];
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
  for (size_t index = 0; index < sections.size(); ++index)
    if (sections[index].sh_type != SHT_NOBITS &&
        !file.contains(sections[index].sh_offset, sections[index].sh_size))
      return pastTheEnd("section #" + std::to_string(index),
                        sections[index].sh_offset, sections[index].sh_size,
                        file.size);
  return "";
}
} // namespace

std::string amp::checkSharedObject(int fd) {
  struct stat status;
  if (fstat(fd, &status) != 0)
    return std::strerror(errno);
  if (!S_ISREG(status.st_mode))
    return "it is not a regular file";
  FileReader reader(fd, uint64_t(status.st_size));
  std::vector<char> magic;
  uint64_t magicBytes = std::min<uint64_t>(reader.size, SELFMAG);
  // An empty file has no bytes to compare (memcmp must not see null).
  if (!reader.read(0, magicBytes, magic) ||
      (magicBytes != 0 && std::memcmp(magic.data(), ELFMAG, magicBytes) != 0))
    return "it is not a shared library (it does not start with the ELF "
           "magic number)";
  std::vector<Elf64_Ehdr> header;
  if (!reader.read(0, 1, header))
    return pastTheEnd("its ELF header", 0, sizeof(Elf64_Ehdr), reader.size);
  std::string error = checkHeader(header.front());
  if (error.empty())
    error = checkSegments(reader, header.front());
  if (error.empty())
    error = checkSections(reader, header.front());
  return error;
}

std::string amp::checkSharedObjectFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return std::strerror(errno);
  std::string error = checkSharedObject(fd);
  close(fd);
  return error;
}

bool amp::definesDynamicSymbol(int fd, const char *name) {
  struct stat status;
  if (fstat(fd, &status) != 0)
    return false;
  FileReader reader(fd, uint64_t(status.st_size));
  std::vector<Elf64_Ehdr> header;
  std::vector<Elf64_Shdr> sections;
  if (!reader.read(0, 1, header) || header.front().e_shnum == 0 ||
      header.front().e_shentsize != sizeof(Elf64_Shdr) ||
      !reader.read(header.front().e_shoff, header.front().e_shnum, sections))
    return false;
  size_t length = std::strlen(name);
  for (const Elf64_Shdr &table : sections) {
    if (table.sh_type != SHT_DYNSYM || table.sh_link >= sections.size())
      continue;
    const Elf64_Shdr &strings = sections[table.sh_link];
    std::vector<Elf64_Sym> symbols;
    std::vector<char> text;
    if (!reader.read(table.sh_offset, table.sh_size / sizeof(Elf64_Sym),
                     symbols) ||
        !reader.read(strings.sh_offset, strings.sh_size, text))
      return false;
    for (const Elf64_Sym &symbol : symbols)
      if (symbol.st_shndx != SHN_UNDEF && symbol.st_name < text.size() &&
          text.size() - symbol.st_name > length &&
          std::memcmp(text.data() + symbol.st_name, name, length + 1) == 0)
        return true;
  }
  return false;
}
