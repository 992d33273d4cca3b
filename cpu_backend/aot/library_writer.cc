#include "cpu_backend/aot/library_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cpu_backend/aot/elf_symbols.h"

namespace xlite::cpu {

namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// `env` when set (a name looked up on PATH, or a path), else the first of
// `names` on PATH.
absl::StatusOr<std::string> FindProgram(const char* env,
                                        std::vector<std::string> names) {
  if (const char* chosen = std::getenv(env); chosen != nullptr && *chosen) {
    if (absl::StrContains(chosen, '/')) {
      if (IsExecutable(chosen)) return std::string(chosen);
      return absl::NotFoundError(
          absl::StrCat(env, "=", chosen, " is not an executable"));
    }
    names = {chosen};
  }
  const char* path = std::getenv("PATH");
  for (const std::string& name : names) {
    for (absl::string_view dir : absl::StrSplit(path ? path : "", ':')) {
      std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/", name);
      if (IsExecutable(candidate)) return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "none of ", absl::StrJoin(names, ", "), " is on PATH (set ", env, ")"));
}

// Runs argv (argv[0] a path) to completion; fails with the command and
// what it printed unless it exits 0.
absl::Status RunProgram(const std::vector<std::string>& argv,
                        const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    return absl::InternalError(absl::StrCat("cannot run ", argv[0]));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  std::stringstream printed;
  printed << std::ifstream(log).rdbuf();
  return absl::InternalError(absl::StrCat("`", absl::StrJoin(argv, " "),
                                          "` failed:\n", printed.str()));
}

absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), bytes.size());
  out.close();
  if (!out.good()) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": error: cannot write the file"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in.good()) {
    return absl::NotFoundError(absl::StrCat(path, ": error: cannot read"));
  }
  return bytes.str();
}

// A fresh temporary directory, removed with everything in it when the
// object goes.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp",
                                    "/xlite-aot-XXXXXX");
    if (mkdtemp(name.data()) != nullptr) path_ = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::Status LinkSharedLibrary(const AotLibrary& library,
                               const std::string& dir, const std::string& out,
                               const std::string& runtime_archive) {
  absl::StatusOr<std::string> cxx =
      FindProgram("CXX", {"c++", "g++", "clang++", "clang++-19"});
  if (!cxx.ok()) return cxx.status();
  const std::string& name = library.interface.entry_name;
  const std::string exports = dir + "/exports.map";
  if (absl::Status s =
          WriteFile(exports, absl::StrCat("{\n  global: ", name, "; ", name,
                                          "_with_temp;\n  local: *;\n};\n"));
      !s.ok()) {
    return s;
  }
  const std::string soname(std::filesystem::path(out).filename().string());
  return RunProgram(
      {*cxx, "-shared", "-o", out, dir + "/module.o", runtime_archive,
       "-Wl,--version-script=" + exports, "-Wl,-z,defs",
       "-Wl,-soname," + soname, "-lm", "-lpthread"},
      dir + "/link.log");
}

absl::Status LinkObject(const AotLibrary& library, const std::string& dir,
                        const std::string& out,
                        const std::string& runtime_archive) {
  absl::StatusOr<std::string> cxx =
      FindProgram("CXX", {"c++", "g++", "clang++", "clang++-19"});
  if (!cxx.ok()) return cxx.status();
  absl::StatusOr<std::string> objcopy = FindProgram("OBJCOPY", {"objcopy"});
  if (!objcopy.ok()) return objcopy.status();
  const std::string linked = dir + "/linked.o";
  // Section groups (C++ inline functions and templates) become plain
  // sections: their symbols are made local below, and a group another
  // library also has would be dropped at the final link with them.
  if (absl::Status s =
          RunProgram({*cxx, "-r", "-nostdlib", "-Wl,--force-group-allocation",
                      "-o", linked, dir + "/module.o", runtime_archive},
                     dir + "/link.log");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> bytes = ReadFile(linked);
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = MakeUniqueSymbolsGlobal(*bytes); !s.ok()) return s;
  if (absl::Status s = WriteFile(linked, *bytes); !s.ok()) return s;
  const std::string& name = library.interface.entry_name;
  return RunProgram(
      {*objcopy, "--keep-global-symbol=" + name,
       "--keep-global-symbol=" + name + "_with_temp", linked, out},
      dir + "/objcopy.log");
}

}  // namespace

absl::StatusOr<AotOutputKind> AotOutputKindOf(absl::string_view path) {
  if (absl::EndsWith(path, ".so")) return AotOutputKind::kSharedLibrary;
  if (absl::EndsWith(path, ".o")) return AotOutputKind::kObject;
  return absl::InvalidArgumentError(
      absl::StrCat("the output '", path,
                   "' must end in .so (a shared library) or .o (an object)"));
}

std::string AotHeaderPath(absl::string_view path) {
  std::filesystem::path p{std::string(path)};
  p.replace_extension(".h");
  return p.string();
}

absl::Status WriteAotLibrary(const AotLibrary& library, const std::string& path,
                             const std::string& runtime_archive) {
  absl::StatusOr<AotOutputKind> kind = AotOutputKindOf(path);
  if (!kind.ok()) return kind.status();
  ScratchDir scratch;
  if (scratch.path().empty()) {
    return absl::InternalError(
        "cannot make a temporary directory ($TMPDIR, else /tmp)");
  }
  const std::string dir = scratch.path();
  if (absl::Status s = WriteFile(dir + "/module.o", library.object); !s.ok()) {
    return s;
  }
  const std::string out = std::filesystem::absolute(path).string();
  absl::Status linked =
      *kind == AotOutputKind::kSharedLibrary
          ? LinkSharedLibrary(library, dir, out, runtime_archive)
          : LinkObject(library, dir, out, runtime_archive);
  if (!linked.ok()) return linked;
  return WriteFile(AotHeaderPath(path), library.header);
}

}  // namespace xlite::cpu
