#include "cpu_backend/build_identity.h"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

namespace xlite::cpu {

namespace {

// The GNU build id in the PT_NOTE segments of one loaded object, as hex; ""
// when it has none.
std::string BuildIdOf(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    // Notes are 4-byte aligned, or 8 in segments aligned so.
    const size_t align = segment.p_align == 8 ? 8 : 4;
    const auto* at =
        reinterpret_cast<const char*>(info.dlpi_addr + segment.p_vaddr);
    const char* end = at + segment.p_memsz;
    auto round_up = [align](size_t n) {
      return (n + align - 1) / align * align;
    };
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof(note));
      const char* name = at + sizeof(note);
      const char* desc = name + round_up(note.n_namesz);
      const char* next = desc + round_up(note.n_descsz);
      if (next > end || next <= at) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        return absl::BytesToHexString(absl::string_view(desc, note.n_descsz));
      }
      at = next;
    }
  }
  return "";
}

// Path, size and modification time of a file ("" if it cannot be read).
std::string FileStamp(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return path;
  return absl::StrCat(path, ":", st.st_size, ":", st.st_mtim.tv_sec, ".",
                      st.st_mtim.tv_nsec);
}

int AddObject(dl_phdr_info* info, size_t, void* data) {
  auto* names = static_cast<std::vector<std::string>*>(data);
  std::string id = BuildIdOf(*info);
  if (id.empty()) {
    // The executable reports an empty name.
    std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
    if (path.empty()) {
      std::error_code error;
      path = std::filesystem::read_symlink("/proc/self/exe", error).string();
    }
    id = "file:" + FileStamp(path);
  }
  names->push_back(std::move(id));
  return 0;
}

std::string ComputeIdentity() {
  std::vector<std::string> ids;
  dl_iterate_phdr(&AddObject, &ids);
  // Load order may vary (LD_PRELOAD, lazily opened libraries); the set is
  // what matters.
  std::sort(ids.begin(), ids.end());
  llvm::SHA256 hash;
  for (const std::string& id : ids) {
    hash.update(llvm::StringRef(id.data(), id.size() + 1));  // with its NUL
  }
  const std::array<uint8_t, 32> digest = hash.final();
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace

const std::string& ProcessBuildIdentity() {
  static const std::string identity = ComputeIdentity();
  return identity;
}

}  // namespace xlite::cpu
