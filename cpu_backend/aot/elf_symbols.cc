#include "cpu_backend/aot/elf_symbols.h"

#include <elf.h>

#include <cstring>

namespace xlite::cpu {

namespace {

// A copy of the T at `offset` of `bytes`, if it lies inside.
template <typename T>
bool Read(const std::string& bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

}  // namespace

absl::Status MakeUniqueSymbolsGlobal(std::string& elf) {
  Elf64_Ehdr header;
  if (!Read(elf, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) ||
      header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_shentsize != sizeof(Elf64_Shdr)) {
    return absl::InvalidArgumentError(
        "the partially linked object is not a 64-bit little-endian ELF file");
  }
  for (uint64_t s = 0; s < header.e_shnum; ++s) {
    Elf64_Shdr section;
    if (!Read(elf, header.e_shoff + s * sizeof(Elf64_Shdr), &section)) {
      return absl::InvalidArgumentError("an ELF section header is cut off");
    }
    if (section.sh_type != SHT_SYMTAB) continue;
    if (section.sh_entsize != sizeof(Elf64_Sym)) {
      return absl::InvalidArgumentError("unexpected ELF symbol size");
    }
    for (uint64_t at = section.sh_offset;
         at < section.sh_offset + section.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      if (!Read(elf, at, &symbol)) {
        return absl::InvalidArgumentError("the ELF symbol table is cut off");
      }
      if (ELF64_ST_BIND(symbol.st_info) != STB_GNU_UNIQUE) continue;
      symbol.st_info = ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(symbol.st_info));
      std::memcpy(elf.data() + at, &symbol, sizeof(symbol));
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::cpu
