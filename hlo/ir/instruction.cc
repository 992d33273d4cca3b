#include "hlo/ir/instruction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/ir/computation.h"

namespace xlite {

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() {
  // Unregister from operands that may outlive this instruction.
  for (HloInstruction* operand : operands_) {
    if (operand != nullptr) operand->RemoveUser(this);
  }
}

std::unique_ptr<HloInstruction> HloInstruction::Create(
    HloOpcode opcode, const Shape& shape,
    absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> instruction(
      new HloInstruction(opcode, shape));
  // reshape's inferred_dimension defaults to "none".
  if (opcode == HloOpcode::kReshape) instruction->index_ = -1;
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  return instruction;
}

bool HloInstruction::IsUserOf(const HloInstruction* operand) const {
  return std::find(operands_.begin(), operands_.end(), operand) !=
         operands_.end();
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

namespace {
constexpr size_t kUserIndexThreshold = 32;
}  // namespace

void HloInstruction::AddUser(HloInstruction* user) {
  if (user_index_ != nullptr) {
    if (user_index_->try_emplace(user, users_.size()).second) {
      users_.push_back(user);
    }
    return;
  }
  if (std::find(users_.begin(), users_.end(), user) != users_.end()) return;
  users_.push_back(user);
  if (users_.size() > kUserIndexThreshold) {
    user_index_ =
        std::make_unique<absl::flat_hash_map<const HloInstruction*, int64_t>>();
    for (size_t i = 0; i < users_.size(); ++i) {
      (*user_index_)[users_[i]] = static_cast<int64_t>(i);
    }
  }
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  if (user_index_ != nullptr) {
    // Keep the order of the remaining users (it decides printing and
    // traversal order): erase in place, renumbering those after it.
    auto it = user_index_->find(user);
    if (it == user_index_->end()) return;
    const int64_t at = it->second;
    user_index_->erase(it);
    users_.erase(users_.begin() + at);
    if (at != static_cast<int64_t>(users_.size())) {
      for (size_t i = at; i < users_.size(); ++i) {
        (*user_index_)[users_[i]] = static_cast<int64_t>(i);
      }
    }
    return;
  }
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it != users_.end()) users_.erase(it);
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

absl::Status HloInstruction::ReplaceOperandWith(int64_t i,
                                                HloInstruction* new_operand) {
  if (i < 0 || i >= operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("operand index ", i, " out of range for ", name_));
  }
  HloInstruction* old = operands_[i];
  if (old == new_operand) return absl::OkStatus();
  if (!ShapesCompatible(old->shape(), new_operand->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace operand ", i, " of ", name_, ": shape ",
        old->shape().ToString(), " vs ", new_operand->shape().ToString()));
  }
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  if (!IsUserOf(old)) old->RemoveUser(this);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceOperandWithDifferentShape(
    int64_t i, HloInstruction* new_operand) {
  if (i < 0 || i >= operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("operand index ", i, " out of range for ", name_));
  }
  HloInstruction* old = operands_[i];
  if (old == new_operand) return absl::OkStatus();
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  if (!IsUserOf(old)) old->RemoveUser(this);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceUseWith(HloInstruction* user,
                                            HloInstruction* new_producer) {
  if (!ShapesCompatible(shape_, new_producer->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace ", name_, " (", shape_.ToString(), ") with ",
        new_producer->name(), " (", new_producer->shape().ToString(), ")"));
  }
  for (HloInstruction*& operand : user->operands_) {
    if (operand == this) operand = new_producer;
  }
  new_producer->AddUser(user);
  RemoveUser(user);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* new_producer) {
  if (new_producer == this) return absl::OkStatus();
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    absl::Status status = ReplaceUseWith(user, new_producer);
    if (!status.ok()) return status;
  }
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(new_producer);
  }
  return absl::OkStatus();
}

void HloInstruction::DetachOperands() {
  for (HloInstruction* operand : operands_) operand->RemoveUser(this);
  operands_.clear();
}

absl::Status HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  if (successor == this) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, " cannot be its own control predecessor"));
  }
  const auto& successors = control_->successors;
  if (std::find(successors.begin(), successors.end(), successor) ==
      successors.end()) {
    control_->successors.push_back(successor);
    successor->control_->predecessors.push_back(this);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::RemoveControlDependencyTo(
    HloInstruction* successor) {
  const auto& successors = control_->successors;
  auto it = std::find(successors.begin(), successors.end(), successor);
  if (it == successors.end()) {
    return absl::NotFoundError(absl::StrCat(
        name_, " is not a control predecessor of ", successor->name()));
  }
  control_->successors.erase(control_->successors.begin() +
                             (it - successors.begin()));
  auto& preds = successor->control_->predecessors;
  preds.erase(std::find(preds.begin(), preds.end(), this));
  return absl::OkStatus();
}

void HloInstruction::DropAllControlDeps() {
  if (control_predecessors().empty() && control_successors().empty()) return;
  for (HloInstruction* pred : control_->predecessors) {
    auto& s = pred->control_->successors;
    s.erase(std::find(s.begin(), s.end(), this));
  }
  for (HloInstruction* succ : control_->successors) {
    auto& p = succ->control_->predecessors;
    p.erase(std::find(p.begin(), p.end(), this));
  }
  control_ = Boxed<ControlDependencies>();
}

HloComputation* HloInstruction::to_apply() const {
  switch (opcode_) {
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kScan:
    case HloOpcode::kCustomCall:
    case HloOpcode::kTopK:
      return called_computations_.size() == 1 ? called_computations_[0]
                                              : nullptr;
    default:
      return nullptr;
  }
}

const HloAttributes& HloInstruction::attrs() const {
  static const HloAttributes* const kDefault = new HloAttributes();
  return attrs_ ? *attrs_ : *kDefault;
}

HloAttributes& HloInstruction::mutable_attrs() {
  if (!attrs_) attrs_ = std::make_unique<HloAttributes>();
  return *attrs_;
}

const OpMetadata& HloInstruction::metadata() const {
  static const OpMetadata* const kEmpty = new OpMetadata();
  return metadata_ ? *metadata_ : *kEmpty;
}

void HloInstruction::set_metadata(const OpMetadata& metadata) {
  if (metadata.empty()) {
    metadata_.reset();
  } else {
    metadata_ = std::make_unique<OpMetadata>(metadata);
  }
}

void HloInstruction::set_sharding(const HloSharding& sharding) {
  sharding_ = std::make_unique<HloSharding>(sharding);
}

const FrontendAttributes& HloInstruction::frontend_attributes() const {
  static const FrontendAttributes* const kEmpty = new FrontendAttributes();
  return frontend_attributes_ ? *frontend_attributes_ : *kEmpty;
}

void HloInstruction::set_frontend_attributes(const FrontendAttributes& attrs) {
  frontend_attributes_ = std::make_unique<FrontendAttributes>(attrs);
}

const std::vector<KeptAttribute>& HloInstruction::kept_attributes() const {
  static const std::vector<KeptAttribute>* const kEmpty =
      new std::vector<KeptAttribute>();
  return kept_attributes_ ? *kept_attributes_ : *kEmpty;
}

void HloInstruction::add_kept_attribute(std::string name, std::string value) {
  if (!kept_attributes_) {
    kept_attributes_ = std::make_unique<std::vector<KeptAttribute>>();
  }
  kept_attributes_->push_back({std::move(name), std::move(value)});
}

bool HloInstruction::HasSideEffect() const {
  switch (opcode_) {
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return true;
    case HloOpcode::kCustomCall:
      return attrs().custom_call->has_side_effect;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kRaggedAllToAll:
      // Cross-module collectives (with a channel id) synchronize devices.
      return attrs().channel_id.has_value();
    default:
      return false;
  }
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> operands) const {
  std::unique_ptr<HloInstruction> clone = Create(opcode_, shape, operands);
  clone->name_ = name_;
  clone->has_dimensions_ = has_dimensions_;
  clone->async_sugar_ = async_sugar_;
  clone->location_ = location_;
  clone->index_ = index_;
  clone->dimensions_ = dimensions_;
  clone->called_computations_ = called_computations_;
  clone->backend_config_ = backend_config_;
  if (attrs_) clone->attrs_ = std::make_unique<HloAttributes>(*attrs_);
  if (metadata_) clone->metadata_ = std::make_unique<OpMetadata>(*metadata_);
  if (sharding_) clone->sharding_ = std::make_unique<HloSharding>(*sharding_);
  if (frontend_attributes_) {
    clone->frontend_attributes_ =
        std::make_unique<FrontendAttributes>(*frontend_attributes_);
  }
  if (kept_attributes_) {
    clone->kept_attributes_ =
        std::make_unique<std::vector<KeptAttribute>>(*kept_attributes_);
  }
  return clone;
}

bool HloInstruction::IdenticalIgnoringOperands(const HloInstruction& other,
                                               bool compare_metadata) const {
  if (opcode_ != other.opcode_ || !(shape_ == other.shape_) ||
      index_ != other.index_ || dimensions_ != other.dimensions_ ||
      has_dimensions_ != other.has_dimensions_ ||
      operands_.size() != other.operands_.size() ||
      backend_config_ != other.backend_config_ ||
      async_sugar_ != other.async_sugar_) {
    return false;
  }
  if (!(attrs() == other.attrs())) return false;
  if (has_sharding() != other.has_sharding() ||
      (has_sharding() && !(sharding() == other.sharding()))) {
    return false;
  }
  if (frontend_attributes() != other.frontend_attributes()) return false;
  if (kept_attributes() != other.kept_attributes()) return false;
  if (compare_metadata && !(metadata() == other.metadata())) return false;
  return true;
}

}  // namespace xlite
