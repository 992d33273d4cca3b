#include "cpu_backend/kernel_chain.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

#include "codegen/loops.h"
#include "cpu_backend/contraction_strategy.h"
#include "cpu_backend/row_locality.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

namespace {

// Bytes a block's members may read and write, together, in a block (the
// second-level cache of one core, about).
constexpr int64_t kBlockBytes = 256 * 1024;

// Instructions the module emitter writes as elemental kernels.
bool IsElementalKernel(const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kFusion) {
    return hlo->fused_computation()->root_instruction()->opcode() !=
               HloOpcode::kScatter &&
           !DotUsesLibrary(*hlo);
  }
  return IsElementwiseOpcode(hlo->opcode()) ||
         hlo->opcode() == HloOpcode::kReduce;
}

// Every array leaf's slice of `hlo`'s result; nothing when one is unknown.
std::optional<std::vector<runtime::Slice>> Slices(EmitterContext& ctx,
                                                  const HloInstruction* hlo) {
  std::vector<runtime::Slice> slices;
  const Shape& shape = hlo->shape();
  if (shape.IsArray()) {
    absl::StatusOr<runtime::Slice> s = ctx.assignment().GetSlice(hlo, {});
    if (!s.ok()) return std::nullopt;
    return std::vector<runtime::Slice>{*s};
  }
  for (int64_t l = 0; l < shape.tuple_shapes_size(); ++l) {
    if (!shape.tuple_shapes(l).IsArray()) continue;
    absl::StatusOr<runtime::Slice> s = ctx.assignment().GetSlice(hlo, {l});
    if (!s.ok()) return std::nullopt;
    slices.push_back(*s);
  }
  return slices;
}

bool Overlap(const runtime::Slice& a, const runtime::Slice& b) {
  return a.allocation == b.allocation && a.offset < b.offset + b.size &&
         b.offset < a.offset + a.size;
}

bool AnyOverlap(const std::vector<runtime::Slice>& a,
                const std::vector<runtime::Slice>& b) {
  for (const runtime::Slice& x : a) {
    for (const runtime::Slice& y : b) {
      if (Overlap(x, y)) return true;
    }
  }
  return false;
}

bool SameArray(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions() &&
         a.element_type() == b.element_type() &&
         codegen::MajorToMinor(a) == codegen::MajorToMinor(b);
}

// Whether `a` (read or written row by row along `a_row`) and `b` (along
// `b_row`) address any shared memory as the same array, row for row.
bool RowAligned(EmitterContext& ctx, const HloInstruction* a, int64_t a_row,
                const HloInstruction* b, int64_t b_row) {
  std::optional<std::vector<runtime::Slice>> sa = Slices(ctx, a);
  std::optional<std::vector<runtime::Slice>> sb = Slices(ctx, b);
  if (!sa || !sb) return false;
  if (!AnyOverlap(*sa, *sb)) return true;
  return a_row >= 0 && a_row == b_row && SameArray(a->shape(), b->shape()) &&
         *sa == *sb;
}

// Bytes `hlo` reads and writes per row of its result.
int64_t BytesPerRow(const HloInstruction* hlo, int64_t rows) {
  int64_t bytes = hlo->shape().ByteSizeOfElements();
  for (const HloInstruction* o : hlo->operands()) {
    if (o->shape().IsArray()) bytes += o->shape().ByteSizeOfElements();
  }
  return std::max<int64_t>(1, bytes / std::max<int64_t>(rows, 1));
}

void ChooseBlock(KernelChain& chain) {
  int64_t unit = 1;
  int64_t per_row = 0;
  for (size_t m = 0; m < chain.members.size(); ++m) {
    unit = std::lcm(unit, chain.splits[m].rows_per_iteration);
    per_row += BytesPerRow(chain.members[m], chain.rows);
  }
  const int64_t rows = std::max<int64_t>(1, kBlockBytes / per_row);
  chain.block_rows = std::min(chain.rows, (rows + unit - 1) / unit * unit);
}

// Whether a block of `hlo`'s rows is one stretch of memory in every
// operand it reads row by row (`rows`), as in its result: only then does
// a block stay in the cache for the next member.
bool RowsAreContiguous(const HloInstruction* hlo,
                       const std::vector<int64_t>& rows) {
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    const Shape& shape = hlo->operand(i)->shape();
    if (rows[i] < 0 || !shape.IsArray()) continue;
    for (int64_t d : codegen::MajorToMinor(shape)) {
      if (d == rows[i]) break;
      if (shape.dimensions(d) > 1) return false;
    }
  }
  return true;
}

// The tasks `split`'s kernel would run on alone (on this machine's cores).
int64_t TasksAlone(const RowSplit& split) {
  const int64_t cores =
      std::max<int64_t>(1, std::thread::hardware_concurrency());
  return std::min({split.trip, split.max_tasks, cores});
}

// Whether `next` (split as `split`, reading its operands at `rows`) may
// join `chain`: every memory it shares with a member is one array walked
// row for row along the same dimension by both.
bool Joins(EmitterContext& ctx, const KernelChain& chain,
           const HloInstruction* next, const RowSplit& split,
           const std::vector<int64_t>& rows) {
  if (split.rows != chain.rows) return false;
  // Blocks of whole iterations of every member: as many tasks as any
  // member alone would have run.
  KernelChain joined;
  joined.rows = chain.rows;
  joined.members = chain.members;
  joined.members.push_back(next);
  joined.splits = chain.splits;
  joined.splits.push_back(split);
  ChooseBlock(joined);
  const int64_t blocks =
      (joined.rows + joined.block_rows - 1) / joined.block_rows;
  for (const RowSplit& s : joined.splits) {
    if (blocks < TasksAlone(s)) return false;
  }
  for (size_t m = 0; m < chain.members.size(); ++m) {
    const HloInstruction* member = chain.members[m];
    const int64_t member_row = chain.splits[m].row_dim;
    // What `next` reads against what the member writes.
    for (int64_t i = 0; i < next->operand_count(); ++i) {
      if (!RowAligned(ctx, next->operand(i), rows[i], member, member_row)) {
        return false;
      }
    }
    // What the member reads, and writes, against what `next` writes.
    for (int64_t i = 0; i < member->operand_count(); ++i) {
      if (!RowAligned(ctx, member->operand(i), chain.operand_rows[m][i], next,
                      split.row_dim)) {
        return false;
      }
    }
    if (!RowAligned(ctx, member, member_row, next, split.row_dim)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<KernelChain> FindKernelChains(
    EmitterContext& ctx, const std::vector<const HloInstruction*>& schedule) {
  std::vector<KernelChain> chains;
  KernelChain current;
  auto close = [&] {
    if (current.members.size() >= 2) {
      ChooseBlock(current);
      chains.push_back(std::move(current));
    }
    current = KernelChain();
  };
  for (const HloInstruction* hlo : schedule) {
    if (OnlyNamesBuffers(hlo->opcode())) continue;
    std::optional<RowSplit> split;
    if (IsElementalKernel(hlo)) split = ElementalRowSplit(ctx, hlo);
    if (!split) {
      close();
      continue;
    }
    std::vector<int64_t> rows = OperandRowDimensions(hlo, split->row_dim);
    if (!RowsAreContiguous(hlo, rows)) {
      close();
      continue;
    }
    if (!current.members.empty() && !Joins(ctx, current, hlo, *split, rows)) {
      close();
    }
    if (current.members.empty()) current.rows = split->rows;
    current.members.push_back(hlo);
    current.splits.push_back(*split);
    current.operand_rows.push_back(std::move(rows));
  }
  close();
  return chains;
}

namespace {

// Scratch for results kept within a chain: on the stack of the thread
// that runs a block, so at most this much per chain.
constexpr int64_t kMaxScratchBytes = int64_t{1} << 20;

// The bytes of one block of member `m`'s result rows.
int64_t BlockScratchBytes(const KernelChain& chain, size_t m) {
  const Shape& shape = chain.members[m]->shape();
  return chain.block_rows *
         (shape.ByteSizeOfElements() / std::max<int64_t>(chain.rows, 1));
}

// The members whose results only later members read (not the last, not
// a computation's root, an array): those live in the chain's scratch.
std::vector<size_t> ScratchMembers(const KernelChain& chain) {
  std::vector<size_t> kept;
  int64_t bytes = 0;
  for (size_t m = 0; m + 1 < chain.members.size(); ++m) {
    const HloInstruction* hlo = chain.members[m];
    if (!hlo->shape().IsArray() || hlo->users().empty() ||
        hlo == hlo->parent()->root_instruction()) {
      continue;
    }
    bool inside = true;
    for (const HloInstruction* user : hlo->users()) {
      auto it =
          std::find(chain.members.begin() + m + 1, chain.members.end(), user);
      inside = inside && it != chain.members.end();
    }
    if (!inside) continue;
    const int64_t block = BlockScratchBytes(chain, m);
    if (bytes + block > kMaxScratchBytes) continue;
    bytes += block;
    kept.push_back(m);
  }
  return kept;
}

// Whether the last member's result may stream: no member before it
// writes its memory (but into scratch), so no line of it is in the cache.
bool LastMemberStreams(EmitterContext& ctx, const KernelChain& chain,
                       const std::vector<size_t>& scratch) {
  const size_t last = chain.members.size() - 1;
  std::optional<std::vector<runtime::Slice>> out =
      Slices(ctx, chain.members[last]);
  if (!out) return false;
  for (size_t m = 0; m < last; ++m) {
    if (std::find(scratch.begin(), scratch.end(), m) != scratch.end()) {
      continue;
    }
    std::optional<std::vector<runtime::Slice>> written =
        Slices(ctx, chain.members[m]);
    if (!written || AnyOverlap(*written, *out)) return false;
  }
  return true;
}

// The input arrays member `m` reads at its rows that an earlier member
// read at its rows in the same block and no member writes, with the bytes
// of one block of each: `m` prefetches the next block of them
// (read_ahead.h).
std::vector<std::pair<runtime::Slice, int64_t>> ReadAheads(
    EmitterContext& ctx, const KernelChain& chain, size_t m) {
  std::vector<runtime::Slice> written;
  for (const HloInstruction* member : chain.members) {
    std::optional<std::vector<runtime::Slice>> s = Slices(ctx, member);
    if (!s) return {};
    written.insert(written.end(), s->begin(), s->end());
  }
  // The slice of operand `i` of member `k` when read at its rows.
  auto read_slice = [&](size_t k, int64_t i) -> std::optional<runtime::Slice> {
    const HloInstruction* operand = chain.members[k]->operand(i);
    if (chain.operand_rows[k][i] < 0 || !operand->shape().IsArray()) {
      return std::nullopt;
    }
    absl::StatusOr<runtime::Slice> s = ctx.assignment().GetSlice(operand, {});
    if (!s.ok()) return std::nullopt;
    return *s;
  };
  std::vector<std::pair<runtime::Slice, int64_t>> result;
  const HloInstruction* member = chain.members[m];
  for (int64_t i = 0; i < member->operand_count(); ++i) {
    std::optional<runtime::Slice> slice = read_slice(m, i);
    if (!slice || AnyOverlap({*slice}, written)) continue;
    bool read_before = false;
    for (size_t k = 0; k < m && !read_before; ++k) {
      for (int64_t j = 0; j < chain.members[k]->operand_count(); ++j) {
        read_before = read_before || read_slice(k, j) == slice;
      }
    }
    if (!read_before) continue;
    const Shape& shape = member->operand(i)->shape();
    const int64_t row_bytes =
        shape.ByteSizeOfElements() / shape.dimensions(chain.operand_rows[m][i]);
    result.push_back({*slice, chain.block_rows * row_bytes});
  }
  return result;
}

// Asks for `requests` in `part` and in the versions it dispatches to.
void RequestReadAheads(
    EmitterContext& ctx, llvm::Function* part,
    const std::vector<std::pair<runtime::Slice, int64_t>>& requests) {
  std::vector<const llvm::Function*> functions = {part};
  for (llvm::BasicBlock& block : *part) {
    for (llvm::Instruction& i : block) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
      llvm::Function* callee =
          call == nullptr ? nullptr : call->getCalledFunction();
      if (callee != nullptr && !callee->isDeclaration()) {
        functions.push_back(callee);
      }
    }
  }
  for (const llvm::Function* f : functions) {
    for (const auto& [slice, bytes] : requests) ctx.ReadAhead(f, slice, bytes);
  }
}

// The member parts; members in `scratch` keep their results in the
// chain's scratch, slots past the allocations in that order.
absl::StatusOr<std::vector<llvm::Function*>> EmitMemberParts(
    EmitterContext& ctx, llvm::IRBuilderBase& b, const KernelChain& chain,
    const std::vector<size_t>& scratch) {
  const int64_t slots = ctx.assignment().allocations().size();
  for (size_t i = 0; i < scratch.size(); ++i) {
    ctx.SetChainScratch(
        chain.members[scratch[i]],
        {slots + static_cast<int64_t>(i), chain.splits[scratch[i]].row_dim});
  }
  const bool streams = LastMemberStreams(ctx, chain, scratch);
  std::vector<llvm::Function*> parts;
  for (size_t m = 0; m < chain.members.size(); ++m) {
    ctx.SetChainRowsPerIteration(chain.splits[m].rows_per_iteration);
    absl::StatusOr<llvm::Function*> part = EmitElementalKernelPart(
        ctx, b, chain.members[m], streams && m + 1 == chain.members.size());
    if (!part.ok()) {
      ctx.ClearChainScratch();
      return part.status();
    }
    // Its table is the chain's own copy: loads from it stay invariant
    // within the part only.
    if (!scratch.empty()) (*part)->addFnAttr(llvm::Attribute::NoInline);
    RequestReadAheads(ctx, *part, ReadAheads(ctx, chain, m));
    parts.push_back(*part);
  }
  ctx.ClearChainScratch();
  return parts;
}

// In the chain's part: the table the members take, the module's with one
// slot per scratch block (on the stack, 64-byte aligned) after it.
llvm::Value* ChainTable(EmitterContext& ctx, llvm::IRBuilderBase& b,
                        const KernelChain& chain,
                        const std::vector<size_t>& scratch) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  if (scratch.empty()) return f->getArg(0);
  const int64_t slots = ctx.assignment().allocations().size();
  llvm::Type* ptr = b.getPtrTy();
  llvm::Value* table = b.CreateAlloca(
      ptr, b.getInt64(slots + static_cast<int64_t>(scratch.size())),
      "chain.table");
  for (int64_t i = 0; i < slots; ++i) {
    llvm::Value* entry =
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, f->getArg(0), i));
    b.CreateStore(entry, b.CreateConstInBoundsGEP1_64(ptr, table, i));
  }
  for (size_t i = 0; i < scratch.size(); ++i) {
    llvm::AllocaInst* block = b.CreateAlloca(
        b.getInt8Ty(), b.getInt64(BlockScratchBytes(chain, scratch[i])),
        "chain.scratch");
    block->setAlignment(llvm::Align(64));
    b.CreateStore(block, b.CreateConstInBoundsGEP1_64(ptr, table, slots + i));
  }
  return table;
}

}  // namespace

absl::Status EmitKernelChain(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const KernelChain& chain) {
  const std::vector<size_t> scratch = ScratchMembers(chain);
  absl::StatusOr<std::vector<llvm::Function*>> member_parts =
      EmitMemberParts(ctx, b, chain, scratch);
  if (!member_parts.ok()) return member_parts.status();
  const std::vector<llvm::Function*>& parts = *member_parts;
  int64_t max_tasks = 1;
  for (const RowSplit& split : chain.splits) {
    max_tasks = std::max(max_tasks, split.max_tasks);
  }
  llvm::BasicBlock* caller = b.GetInsertBlock();
  const std::string name = "chain." + chain.members[0]->name();
  llvm::Function* code = ctx.NewKernelPart(b, name + ".part");
  llvm::Value* table = ChainTable(ctx, b, chain, scratch);
  const int64_t blocks = (chain.rows + chain.block_rows - 1) / chain.block_rows;
  const codegen::SplitRange range{code->getArg(2), code->getArg(3)};
  const codegen::SplitRange* split = &range;
  absl::Status status = codegen::EmitSplittableLoop(
      b, blocks, split, "chain.blocks", [&](llvm::Value* block) {
        llvm::Value* first = b.CreateMul(block, b.getInt64(chain.block_rows));
        llvm::Value* last = b.CreateBinaryIntrinsic(
            llvm::Intrinsic::smin, b.getInt64(chain.rows),
            b.CreateAdd(first, b.getInt64(chain.block_rows)));
        for (size_t m = 0; m < parts.size(); ++m) {
          // Iterations covering rows [first, last): blocks start on whole
          // iterations; the last one may end in a narrower one.
          llvm::Value* per = b.getInt64(chain.splits[m].rows_per_iteration);
          llvm::Value* begin = b.CreateUDiv(first, per);
          llvm::Value* end = b.CreateUDiv(
              b.CreateAdd(last, b.CreateSub(per, b.getInt64(1))), per);
          b.CreateCall(parts[m], {table, code->getArg(1), begin, end});
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  b.CreateRetVoid();
  if (max_tasks > 1 && blocks > 1) {
    llvm::Function* kernel = ctx.NewKernel(b, name);
    ctx.CallKernelParts(b, code, blocks, std::min(blocks, max_tasks));
    b.CreateRetVoid();
    b.SetInsertPoint(caller);
    ctx.CallKernel(b, kernel);
    return absl::OkStatus();
  }
  b.SetInsertPoint(caller);
  llvm::Function* f = caller->getParent();
  b.CreateCall(code,
               {f->getArg(0), f->getArg(1), b.getInt64(0), b.getInt64(blocks)});
  return absl::OkStatus();
}

}  // namespace xlite::cpu
