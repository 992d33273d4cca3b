#include "gpu_backend/emulator/mbarrier_table.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xlite::gpu::emulator {

MbarrierTable::Barrier* MbarrierTable::Find(int64_t at, const char* what,
                                            std::string& error) {
  auto it = barriers_.find(at);
  if (it == barriers_.end()) {
    error = absl::StrCat(what, " on shared byte ", at,
                         ", where no mbarrier was initialized");
    return nullptr;
  }
  return &it->second;
}

std::string MbarrierTable::Init(int64_t at, int64_t count) {
  if (at % 8 != 0 || count < 1) {
    return absl::StrCat("mbarrier.init at shared byte ", at, " with count ",
                        count, " (it needs 8-byte alignment and a count >= 1)");
  }
  Barrier& b = barriers_[at];
  b = Barrier{};
  b.count = count;
  b.pending = count;
  return "";
}

std::string MbarrierTable::Settle(Barrier& b) {
  if (b.pending != 0 || b.completions.empty() || b.tx != 0 ||
      !b.copies.empty()) {
    return "";
  }
  for (const auto& complete : b.completions) {
    if (std::string e = complete(); !e.empty()) return e;
  }
  b.completions.clear();
  ++b.phase;
  b.pending = b.count;
  return "";
}

std::string MbarrierTable::ArriveExpectTx(int64_t at, int64_t bytes) {
  std::string error;
  Barrier* b = Find(at, "mbarrier.arrive.expect_tx", error);
  if (b == nullptr) return error;
  if (std::string e = Settle(*b); !e.empty()) return e;
  if (b->pending == 0) {
    return absl::StrCat("mbarrier at shared byte ", at,
                        ": more arrivals than its count in one phase");
  }
  b->tx += bytes;
  --b->pending;
  return "";
}

std::string MbarrierTable::Arrive(int64_t at) {
  std::string error;
  Barrier* b = Find(at, "mbarrier.arrive", error);
  if (b == nullptr) return error;
  if (std::string e = Settle(*b); !e.empty()) return e;
  if (b->pending == 0) {
    return absl::StrCat("mbarrier at shared byte ", at,
                        ": more arrivals than its count in one phase");
  }
  if (--b->pending == 0 && b->tx == 0 && b->copies.empty() &&
      b->completions.empty()) {
    ++b->phase;
    b->pending = b->count;
  }
  return "";
}

std::string MbarrierTable::ArriveOnCompletion(
    int64_t at, std::function<std::string()> complete) {
  std::string error;
  Barrier* b = Find(at, "tcgen05.commit", error);
  if (b == nullptr) return error;
  if (std::string e = Settle(*b); !e.empty()) return e;
  if (b->pending == 0) {
    return absl::StrCat("mbarrier at shared byte ", at,
                        ": more arrivals than its count in one phase");
  }
  --b->pending;
  b->completions.push_back(std::move(complete));
  return "";
}

std::string MbarrierTable::AddCopy(int64_t at, std::vector<Chunk> chunks) {
  std::string error;
  Barrier* b = Find(at, "cp.async.bulk.tensor completing", error);
  if (b == nullptr) return error;
  b->copies.push_back(std::move(chunks));
  return "";
}

bool MbarrierTable::TryWait(int64_t at, int32_t parity, uint8_t* shared,
                            std::string& error) {
  Barrier* b = Find(at, "mbarrier.try_wait", error);
  if (b == nullptr) return false;
  if ((b->phase & 1) != (parity & 1)) return true;  // that phase is done
  if (b->pending != 0) return false;
  for (const std::vector<Chunk>& copy : b->copies) {
    for (const Chunk& c : copy) {
      std::memcpy(shared + c.at, c.bytes, sizeof(c.bytes));
      b->tx -= sizeof(c.bytes);
    }
  }
  b->copies.clear();
  for (const auto& complete : b->completions) {
    if (std::string e = complete(); !e.empty()) {
      error = e;
      return false;
    }
  }
  b->completions.clear();
  if (b->tx != 0) {
    error = absl::StrCat("mbarrier at shared byte ", at, ": ",
                         b->tx > 0 ? "expects " : "received ",
                         b->tx > 0 ? b->tx : -b->tx,
                         b->tx > 0 ? " transaction bytes no copy brings"
                                   : " bytes more than expect_tx announced");
    return false;
  }
  ++b->phase;
  b->pending = b->count;
  return true;  // the phase asked for was the current one: now done
}

bool MbarrierTable::AnyPending(
    const std::function<bool(int64_t at, int32_t bytes)>& hits) const {
  for (const auto& [at, b] : barriers_) {
    for (const std::vector<Chunk>& copy : b.copies) {
      for (const Chunk& c : copy) {
        if (hits(c.at, sizeof(c.bytes))) return true;
      }
    }
  }
  return false;
}

}  // namespace xlite::gpu::emulator
