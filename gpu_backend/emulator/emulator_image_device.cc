#include "gpu_backend/emulator/emulator_image_device.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/emulator_target.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace xlite::gpu::emulator {
namespace {

constexpr int64_t kAlignment = 256;

void CollectKernels(const runtime::ThunkSequence& thunks,
                    std::vector<std::string>& names) {
  for (const runtime::Thunk& t : thunks) {
    if (t.kind == runtime::Thunk::Kind::kKernel) names.push_back(t.kernel);
    for (const auto& child : t.children) CollectKernels(child, names);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<EmulatorImageDevice>> EmulatorImageDevice::Create(
    const runtime::GpuImage& image) {
  std::vector<std::string> names;
  CollectKernels(image.thunks, names);
  if (image.emulator_ir.empty() && !names.empty()) {
    return absl::FailedPreconditionError(
        "this .xlx carries no emulator kernels (written without them); run "
        "it with --platform=gpu");
  }
  auto device = std::unique_ptr<EmulatorImageDevice>(new EmulatorImageDevice());
  absl::StatusOr<std::unique_ptr<HostJit>> jit = HostJit::Create();
  if (!jit.ok()) return jit.status();
  device->jit_ = *std::move(jit);
  absl::flat_hash_map<std::string, KernelEntry> entries;
  if (!names.empty()) {
    auto context = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic error;
    std::unique_ptr<llvm::Module> module =
        llvm::parseAssemblyString(image.emulator_ir, error, *context);
    if (module == nullptr) {
      std::string text;
      llvm::raw_string_ostream os(text);
      error.print("xlx", os);
      return absl::InvalidArgumentError(
          absl::StrCat("the .xlx's emulator IR does not parse: ", text));
    }
    if (llvm::verifyModule(*module)) {
      return absl::InvalidArgumentError(
          "the .xlx's emulator IR does not verify");
    }
    module->setTargetTriple(device->jit_->triple());
    module->setDataLayout(device->jit_->data_layout());
    if (absl::Status s =
            device->jit_->AddModule(std::move(context), std::move(module));
        !s.ok()) {
      return s;
    }
  }
  for (const std::string& name : names) {
    absl::StatusOr<void*> entry =
        device->jit_->Lookup(EmulatorTarget::EntryName(name));
    if (!entry.ok()) return entry.status();
    entries[name] = reinterpret_cast<KernelEntry>(*entry);
  }
  device->device_ = std::make_unique<EmulatorDevice>(std::move(entries));
  return device;
}

absl::StatusOr<uint64_t> EmulatorImageDevice::Allocate(int64_t bytes) {
  const int64_t rounded =
      ((bytes > 0 ? bytes : 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes"));
  }
  std::memset(p, 0, rounded);
  return reinterpret_cast<uint64_t>(p);
}

absl::Status EmulatorImageDevice::Free(uint64_t address) {
  std::free(reinterpret_cast<void*>(address));
  return absl::OkStatus();
}

absl::Status EmulatorImageDevice::CopyToDevice(uint64_t destination,
                                               const void* source,
                                               int64_t bytes) {
  if (bytes > 0) std::memcpy(reinterpret_cast<void*>(destination), source, bytes);
  return absl::OkStatus();
}

absl::Status EmulatorImageDevice::CopyFromDevice(void* destination,
                                                 uint64_t source,
                                                 int64_t bytes) {
  if (bytes > 0) std::memcpy(destination, reinterpret_cast<void*>(source), bytes);
  return absl::OkStatus();
}

absl::Status EmulatorImageDevice::Run(
    const runtime::ThunkSequence& thunks,
    const std::vector<uint64_t>& allocations) {
  std::vector<uint8_t*> bases;
  for (uint64_t a : allocations) bases.push_back(reinterpret_cast<uint8_t*>(a));
  return device_->Run(thunks, bases, profile_);
}

absl::Status EmulatorImageDevice::SetProfile(runtime::ThunkProfile* profile) {
  if (profile != nullptr &&
      profile->clock() != runtime::ThunkProfile::Clock::kEmulatorHostWall) {
    return absl::InvalidArgumentError(
        "the emulator times thunks with the host's wall clock only");
  }
  profile_ = profile;
  return absl::OkStatus();
}

}  // namespace xlite::gpu::emulator
