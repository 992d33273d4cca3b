#include "runtime/cuda/cudnn_block_scaled_dot.h"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/primitive_type.h"
#include "runtime/cuda/dynamic_library.h"

namespace xlite::runtime::cuda {
namespace {

absl::StatusOr<dnn::Api> Load() {
  std::vector<std::string> names;
  void* library =
      OpenFirstLibrary("XLITE_CUDNN", {"libcudnn.so.9", "libcudnn.so"}, names);
  if (library == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cuDNN not found (tried ", absl::StrJoin(names, ", "),
                     "): block-scaled dot thunks need it; set XLITE_CUDNN to "
                     "libcudnn.so's path"));
  }
  dnn::Api api{};
  std::string missing;
  BindSymbol(library, "cudnnGetVersion", api.GetVersion, missing);
  BindSymbol(library, "cudnnGetErrorString", api.GetErrorString, missing);
  BindSymbol(library, "cudnnGetLastErrorString", api.GetLastErrorString,
             missing);
  BindSymbol(library, "cudnnCreate", api.Create, missing);
  BindSymbol(library, "cudnnDestroy", api.Destroy, missing);
  BindSymbol(library, "cudnnSetStream", api.SetStream, missing);
  BindSymbol(library, "cudnnBackendCreateDescriptor",
             api.BackendCreateDescriptor, missing);
  BindSymbol(library, "cudnnBackendDestroyDescriptor",
             api.BackendDestroyDescriptor, missing);
  BindSymbol(library, "cudnnBackendFinalize", api.BackendFinalize, missing);
  BindSymbol(library, "cudnnBackendSetAttribute", api.BackendSetAttribute,
             missing);
  BindSymbol(library, "cudnnBackendGetAttribute", api.BackendGetAttribute,
             missing);
  BindSymbol(library, "cudnnBackendExecute", api.BackendExecute, missing);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the cuDNN found lacks ", missing, " (cuDNN 9 needed)"));
  }
  // The block scale operations came with cuDNN 9.7.
  if (api.GetVersion() < 90700) {
    return absl::FailedPreconditionError(
        absl::StrCat("cuDNN ", api.GetVersion(),
                     " has no block scale dequantize (9.7 or newer needed)"));
  }
  return api;
}

// cuDNN's message for `status`: its name and the library's last error.
absl::Status Check(const dnn::Api& api, int status, absl::string_view what) {
  if (status == dnn::kSuccess) return absl::OkStatus();
  char last[512] = {0};
  api.GetLastErrorString(last, sizeof(last) - 1);
  return absl::InternalError(
      absl::StrCat(what, ": ", api.GetErrorString(status),
                   last[0] != 0 ? " (" : "", last, last[0] != 0 ? ")" : ""));
}

}  // namespace

namespace cudnn_internal {

// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  Descriptor(const dnn::Api& api, dnn::Descriptor* d) : api_(api), d_(d) {}
  ~Descriptor() {
    if (d_ != nullptr) api_.BackendDestroyDescriptor(d_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  dnn::Descriptor* get() const { return d_; }

 private:
  const dnn::Api& api_;
  dnn::Descriptor* d_;
};

// Descriptors built for a graph, owned together.
class Builder {
 public:
  explicit Builder(const dnn::Api& api) : api_(api) {}

  absl::StatusOr<dnn::Descriptor*> Create(int32_t type,
                                          absl::string_view what) {
    dnn::Descriptor* d = nullptr;
    if (absl::Status s = Check(api_, api_.BackendCreateDescriptor(type, &d),
                               absl::StrCat("creating ", what));
        !s.ok()) {
      return s;
    }
    owned_.push_back(std::make_unique<Descriptor>(api_, d));
    return d;
  }

  absl::Status Set(dnn::Descriptor* d, int32_t name, int32_t type,
                   int64_t count, const void* values, absl::string_view what) {
    return Check(api_, api_.BackendSetAttribute(d, name, type, count, values),
                 what);
  }

  absl::Status Finalize(dnn::Descriptor* d, absl::string_view what) {
    return Check(api_, api_.BackendFinalize(d),
                 absl::StrCat("finalizing ", what));
  }

  absl::StatusOr<dnn::Descriptor*> Tensor(const CudnnTensorSpec& t);
  absl::StatusOr<dnn::Descriptor*> Operation(
      const CudnnOpSpec& op,
      const std::map<int64_t, dnn::Descriptor*>& tensors);
  // Every tensor and operation of `graph`; the operations in order.
  absl::StatusOr<std::vector<dnn::Descriptor*>> Graph(
      const CudnnGraphSpec& graph);

 private:
  const dnn::Api& api_;
  std::vector<std::unique_ptr<Descriptor>> owned_;
};

absl::StatusOr<dnn::Descriptor*> Builder::Tensor(const CudnnTensorSpec& t) {
  absl::StatusOr<dnn::Descriptor*> d =
      Create(dnn::kTensorDescriptor, "tensor " + t.name);
  if (!d.ok()) return d;
  const int64_t alignment = 16;
  const bool is_virtual = t.is_virtual;
  const std::string what = "tensor " + t.name;
  for (absl::Status s :
       {Set(*d, dnn::kTensorDataType, dnn::kTypeDataType, 1, &t.data_type,
            what),
        Set(*d, dnn::kTensorDimensions, dnn::kTypeInt64, t.dims.size(),
            t.dims.data(), what),
        Set(*d, dnn::kTensorStrides, dnn::kTypeInt64, t.strides.size(),
            t.strides.data(), what),
        Set(*d, dnn::kTensorUniqueId, dnn::kTypeInt64, 1, &t.uid, what),
        Set(*d, dnn::kTensorByteAlignment, dnn::kTypeInt64, 1, &alignment,
            what),
        Set(*d, dnn::kTensorIsVirtual, dnn::kTypeBoolean, 1, &is_virtual, what),
        Set(*d, dnn::kTensorReorderingMode, dnn::kTypeTensorReorderingMode, 1,
            &t.reordering, what),
        Finalize(*d, what)}) {
    if (!s.ok()) return s;
  }
  return d;
}

absl::StatusOr<dnn::Descriptor*> Builder::Operation(
    const CudnnOpSpec& op, const std::map<int64_t, dnn::Descriptor*>& tensors) {
  std::vector<dnn::Descriptor*> in;
  for (int64_t uid : op.inputs) in.push_back(tensors.at(uid));
  dnn::Descriptor* out = tensors.at(op.output);
  const int32_t f32 = dnn::kFloat;
  const int32_t d = dnn::kTypeBackendDescriptor;
  switch (op.kind) {
    case CudnnOpSpec::Kind::kDequantize: {
      absl::StatusOr<dnn::Descriptor*> o =
          Create(dnn::kOperationBlockScaleDequantizeDescriptor, "a dequantize");
      if (!o.ok()) return o;
      for (absl::Status s :
           {Set(*o, dnn::kBlockScaleDequantizeXDesc, d, 1, &in[0], "dq x"),
            Set(*o, dnn::kBlockScaleDequantizeScaleDesc, d, 1, &in[1],
                "dq scale"),
            Set(*o, dnn::kBlockScaleDequantizeYDesc, d, 1, &out, "dq y"),
            Set(*o, dnn::kBlockScaleDequantizeMathPrec, dnn::kTypeDataType, 1,
                &f32, "dq precision"),
            Set(*o, dnn::kBlockScaleDequantizeBlockSize, dnn::kTypeInt32, 1,
                &op.block_size, "dq block size"),
            Finalize(*o, "the block scale dequantize")}) {
        if (!s.ok()) return s;
      }
      return o;
    }
    case CudnnOpSpec::Kind::kMatmul: {
      absl::StatusOr<dnn::Descriptor*> m =
          Create(dnn::kMatmulDescriptor, "the matmul descriptor");
      if (!m.ok()) return m;
      if (absl::Status s = Set(*m, dnn::kMatmulCompType, dnn::kTypeDataType, 1,
                               &f32, "matmul compute type");
          !s.ok()) {
        return s;
      }
      if (absl::Status s = Finalize(*m, "the matmul descriptor"); !s.ok()) {
        return s;
      }
      absl::StatusOr<dnn::Descriptor*> o =
          Create(dnn::kOperationMatmulDescriptor, "the matmul");
      if (!o.ok()) return o;
      for (absl::Status s :
           {Set(*o, dnn::kOperationMatmulADesc, d, 1, &in[0], "matmul a"),
            Set(*o, dnn::kOperationMatmulBDesc, d, 1, &in[1], "matmul b"),
            Set(*o, dnn::kOperationMatmulCDesc, d, 1, &out, "matmul c"),
            Set(*o, dnn::kOperationMatmulDesc, d, 1, &*m, "matmul desc"),
            Finalize(*o, "the matmul")}) {
        if (!s.ok()) return s;
      }
      return o;
    }
    case CudnnOpSpec::Kind::kMultiply: {
      absl::StatusOr<dnn::Descriptor*> p =
          Create(dnn::kPointwiseDescriptor, "the multiply descriptor");
      if (!p.ok()) return p;
      const int32_t mul = dnn::kPointwiseMul;
      for (absl::Status s : {Set(*p, dnn::kPointwiseMode,
                                 dnn::kTypePointwiseMode, 1, &mul, "mode"),
                             Set(*p, dnn::kPointwiseMathPrec,
                                 dnn::kTypeDataType, 1, &f32, "precision"),
                             Finalize(*p, "the multiply descriptor")}) {
        if (!s.ok()) return s;
      }
      absl::StatusOr<dnn::Descriptor*> o =
          Create(dnn::kOperationPointwiseDescriptor, "the multiply");
      if (!o.ok()) return o;
      for (absl::Status s :
           {Set(*o, dnn::kOperationPointwisePwDescriptor, d, 1, &*p, "pw"),
            Set(*o, dnn::kOperationPointwiseXDesc, d, 1, &in[0], "pw x"),
            Set(*o, dnn::kOperationPointwiseBDesc, d, 1, &in[1], "pw b"),
            Set(*o, dnn::kOperationPointwiseYDesc, d, 1, &out, "pw y"),
            Finalize(*o, "the global-scale multiply")}) {
        if (!s.ok()) return s;
      }
      return o;
    }
  }
  return absl::InternalError("unknown cuDNN operation");
}

absl::StatusOr<std::vector<dnn::Descriptor*>> Builder::Graph(
    const CudnnGraphSpec& graph) {
  std::map<int64_t, dnn::Descriptor*> tensors;
  for (const CudnnTensorSpec& t : graph.tensors) {
    absl::StatusOr<dnn::Descriptor*> d = Tensor(t);
    if (!d.ok()) return d.status();
    tensors[t.uid] = *d;
  }
  std::vector<dnn::Descriptor*> ops;
  for (const CudnnOpSpec& op : graph.ops) {
    absl::StatusOr<dnn::Descriptor*> d = Operation(op, tensors);
    if (!d.ok()) return d.status();
    ops.push_back(*d);
  }
  return ops;
}

}  // namespace cudnn_internal

namespace {

using cudnn_internal::Builder;

int32_t DataType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return dnn::kHalf;
    case PrimitiveType::kBF16:
      return dnn::kBFloat16;
    case PrimitiveType::kF8E4M3FN:
      return dnn::kFp8E4M3;
    case PrimitiveType::kF8E5M2:
      return dnn::kFp8E5M2;
    case PrimitiveType::kF8E8M0FNU:
      return dnn::kFp8E8M0;
    case PrimitiveType::kF4E2M1FN:
      return dnn::kFp4E2M1;
    default:
      return dnn::kFloat;
  }
}

}  // namespace

CudnnGraphSpec BlockScaledDotGraph(const BlockScaledDotDescription& dot) {
  const int64_t b = dot.batch, m = dot.m, n = dot.n, k = dot.k;
  const int64_t blocks = k / dot.block_size, sk = dot.scale_k;
  const int64_t lr = dot.lhs_scale_rows, rr = dot.rhs_scale_rows;
  auto type = [&](int i) { return DataType(dot.operands[i].element_type()); };
  CudnnGraphSpec g;
  // b is [B,N,K] row-major: as cuDNN's [B,K,N] it is column-major, and so
  // is its scale.
  g.tensors = {
      {"a", 1, type(0), {b, m, k}, {m * k, k, 1}},
      {"b", 2, type(1), {b, k, n}, {n * k, 1, k}},
      {"a_scale",
       3,
       type(2),
       {b, m, blocks},
       {lr * sk, sk, 1},
       false,
       dnn::kReorderingF8_128x4},
      {"b_scale",
       4,
       type(3),
       {b, blocks, n},
       {rr * sk, 1, sk},
       false,
       dnn::kReorderingF8_128x4},
  };
  int64_t next = 5;
  g.argument_uids = {1, 2, 3, 4};
  int64_t global = 0;
  if (dot.has_global_scale()) {
    global = next++;
    g.tensors.push_back({"global_scale",
                         global,
                         DataType(dot.operands[4].element_type()),
                         {1, 1, 1},
                         {1, 1, 1}});
    g.argument_uids.push_back(global);
  }
  const int64_t output = next++;
  g.tensors.push_back({"output",
                       output,
                       DataType(dot.out().element_type()),
                       {b, m, n},
                       {m * n, n, 1}});
  g.argument_uids.push_back(output);
  const int32_t f32 = dnn::kFloat;
  g.tensors.push_back(
      {"a_dequantized", 100, f32, {b, m, k}, {m * k, k, 1}, true});
  g.tensors.push_back(
      {"b_dequantized", 101, f32, {b, k, n}, {n * k, 1, k}, true});
  const int32_t block = static_cast<int32_t>(dot.block_size);
  g.ops.push_back({CudnnOpSpec::Kind::kDequantize, {1, 3}, 100, block});
  g.ops.push_back({CudnnOpSpec::Kind::kDequantize, {2, 4}, 101, block});
  if (global == 0) {
    g.ops.push_back({CudnnOpSpec::Kind::kMatmul, {100, 101}, output});
    return g;
  }
  g.tensors.push_back({"product", 102, f32, {b, m, n}, {m * n, n, 1}, true});
  g.ops.push_back({CudnnOpSpec::Kind::kMatmul, {100, 101}, 102});
  g.ops.push_back({CudnnOpSpec::Kind::kMultiply, {102, global}, output});
  return g;
}

std::string CudnnGraphToString(const CudnnGraphSpec& graph) {
  std::string out;
  for (const CudnnTensorSpec& t : graph.tensors) {
    absl::StrAppend(
        &out, "tensor ", t.uid, " ", t.name, " type=", t.data_type, " dims=[",
        absl::StrJoin(t.dims, ","), "] strides=[",
        absl::StrJoin(t.strides, ","), "]", t.is_virtual ? " virtual" : "",
        t.reordering == dnn::kReorderingF8_128x4 ? " F8_128x4" : "", "\n");
  }
  for (const CudnnOpSpec& op : graph.ops) {
    const char* name = op.kind == CudnnOpSpec::Kind::kDequantize ? "dequantize"
                       : op.kind == CudnnOpSpec::Kind::kMatmul   ? "matmul"
                                                                 : "multiply";
    absl::StrAppend(
        &out, name, "(", absl::StrJoin(op.inputs, ", "), ") -> ", op.output,
        op.block_size > 0 ? absl::StrCat(" block=", op.block_size) : "", "\n");
  }
  return out;
}

absl::StatusOr<const dnn::Api*> LoadCudnn() {
  static const absl::StatusOr<dnn::Api>* const api =
      new absl::StatusOr<dnn::Api>(Load());
  if (!api->ok()) return api->status();
  return &**api;
}

absl::Status CheckCudnnGraphDescriptors(const BlockScaledDotDescription& dot) {
  absl::StatusOr<const dnn::Api*> api = LoadCudnn();
  if (!api.ok()) return api.status();
  Builder builder(**api);
  return builder.Graph(BlockScaledDotGraph(dot)).status();
}

struct CudnnBlockScaledDotRunner::Plan {
  explicit Plan(const dnn::Api& api) : builder(api) {}
  cudnn_internal::Builder builder;  // owns every descriptor below
  CudnnGraphSpec graph;
  dnn::Descriptor* plan = nullptr;
};

absl::StatusOr<std::unique_ptr<CudnnBlockScaledDotRunner>>
CudnnBlockScaledDotRunner::Create() {
  absl::StatusOr<const dnn::Api*> api = LoadCudnn();
  if (!api.ok()) return api.status();
  dnn::Handle* handle = nullptr;
  if (absl::Status s = Check(**api, (*api)->Create(&handle), "cudnnCreate");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<CudnnBlockScaledDotRunner>(
      new CudnnBlockScaledDotRunner(**api, handle));
}

CudnnBlockScaledDotRunner::CudnnBlockScaledDotRunner(const dnn::Api& api,
                                                     dnn::Handle* handle)
    : api_(api), handle_(handle) {}

CudnnBlockScaledDotRunner::~CudnnBlockScaledDotRunner() {
  plans_.clear();  // descriptors before the handle
  api_.Destroy(handle_);
}

absl::StatusOr<const CudnnBlockScaledDotRunner::Plan*>
CudnnBlockScaledDotRunner::PlanFor(const BlockScaledDotDescription& dot) {
  if (auto it = plans_.find(&dot); it != plans_.end()) return it->second.get();
  auto plan = std::make_unique<Plan>(api_);
  Builder& b = plan->builder;
  plan->graph = BlockScaledDotGraph(dot);
  absl::StatusOr<std::vector<dnn::Descriptor*>> ops = b.Graph(plan->graph);
  if (!ops.ok()) return ops.status();
  const int32_t d = dnn::kTypeBackendDescriptor;
  absl::StatusOr<dnn::Descriptor*> graph =
      b.Create(dnn::kOperationGraphDescriptor, "the operation graph");
  if (!graph.ok()) return graph.status();
  for (absl::Status s : {b.Set(*graph, dnn::kOperationGraphOps, d, ops->size(),
                               ops->data(), "graph ops"),
                         b.Set(*graph, dnn::kOperationGraphHandle,
                               dnn::kTypeHandle, 1, &handle_, "graph handle"),
                         b.Finalize(*graph, "the operation graph")}) {
    if (!s.ok()) return s;
  }
  absl::StatusOr<dnn::Descriptor*> heuristics =
      b.Create(dnn::kEngineHeurDescriptor, "the engine heuristics");
  if (!heuristics.ok()) return heuristics.status();
  const int32_t mode = dnn::kHeurModeA;
  for (absl::Status s : {b.Set(*heuristics, dnn::kEngineHeurOperationGraph, d,
                               1, &*graph, "heuristics graph"),
                         b.Set(*heuristics, dnn::kEngineHeurMode,
                               dnn::kTypeHeurMode, 1, &mode, "heuristics mode"),
                         b.Finalize(*heuristics, "the engine heuristics")}) {
    if (!s.ok()) return s;
  }
  constexpr int kMaxConfigs = 8;
  std::vector<dnn::Descriptor*> configs;
  for (int i = 0; i < kMaxConfigs; ++i) {
    absl::StatusOr<dnn::Descriptor*> c =
        b.Create(dnn::kEngineCfgDescriptor, "an engine configuration");
    if (!c.ok()) return c.status();
    configs.push_back(*c);
  }
  int64_t returned = 0;
  if (absl::Status s = Check(
          api_,
          api_.BackendGetAttribute(*heuristics, dnn::kEngineHeurResults, d,
                                   kMaxConfigs, &returned, configs.data()),
          "reading the heuristics' engine configurations");
      !s.ok()) {
    return s;
  }
  // The first configuration that makes a plan within the call's workspace.
  std::vector<std::string> tried;
  for (int64_t i = 0; i < returned && i < kMaxConfigs; ++i) {
    absl::StatusOr<dnn::Descriptor*> p =
        b.Create(dnn::kExecutionPlanDescriptor, "an execution plan");
    if (!p.ok()) return p.status();
    absl::Status s = b.Set(*p, dnn::kExecutionPlanHandle, dnn::kTypeHandle, 1,
                           &handle_, "plan handle");
    if (s.ok()) {
      s = b.Set(*p, dnn::kExecutionPlanEngineConfig, d, 1, &configs[i],
                "plan engine configuration");
    }
    if (s.ok()) s = b.Finalize(*p, "the plan");
    int64_t workspace = 0, n = 0;
    if (s.ok()) {
      s = Check(api_,
                api_.BackendGetAttribute(*p, dnn::kExecutionPlanWorkspaceSize,
                                         dnn::kTypeInt64, 1, &n, &workspace),
                "reading the plan's workspace size");
    }
    if (s.ok() && workspace > dot.workspace_bytes) {
      s = absl::ResourceExhaustedError(absl::StrCat(
          "needs ", workspace, " bytes of workspace; the call has ",
          dot.workspace_bytes));
    }
    if (s.ok()) {
      plan->plan = *p;
      const Plan* result = plan.get();
      plans_[&dot] = std::move(plan);
      return result;
    }
    tried.push_back(
        absl::StrCat("engine configuration ", i, ": ", s.message()));
  }
  return absl::NotFoundError(
      absl::StrCat("no cuDNN execution plan for ", BlockScaledDotToString(dot),
                   " (", returned, " engine configurations proposed",
                   tried.empty() ? "" : "; ", absl::StrJoin(tried, "; "), ")"));
}

absl::Status CudnnBlockScaledDotRunner::Run(
    const BlockScaledDotDescription& dot,
    const std::vector<uint64_t>& arguments, void* stream) {
  if (static_cast<int64_t>(arguments.size()) != dot.ArgumentCount()) {
    return absl::InvalidArgumentError("block-scaled dot argument count");
  }
  if (dot.block_size == 16) {
    // xlite's buffers hold one f4 element per byte; cuDNN reads two.
    return absl::UnimplementedError(
        "NVFP4 operands on a CUDA device: xlite stores f4e2m1fn one element "
        "per byte and cuDNN reads them packed; compile with --cudnn-version=0 "
        "for the expansion path");
  }
  absl::StatusOr<const Plan*> plan = PlanFor(dot);
  if (!plan.ok()) return plan.status();
  std::vector<void*> pointers;
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    pointers.push_back(reinterpret_cast<void*>(arguments[i]));
  }
  void* workspace = reinterpret_cast<void*>(arguments.back());
  const std::vector<int64_t>& uids = (*plan)->graph.argument_uids;
  Builder b(api_);
  const int32_t v = dnn::kTypeVoidPtr;
  absl::StatusOr<dnn::Descriptor*> pack =
      b.Create(dnn::kVariantPackDescriptor, "the variant pack");
  if (!pack.ok()) return pack.status();
  for (absl::Status s :
       {b.Set(*pack, dnn::kVariantPackUniqueIds, dnn::kTypeInt64, uids.size(),
              uids.data(), "variant pack ids"),
        b.Set(*pack, dnn::kVariantPackDataPointers, v, pointers.size(),
              pointers.data(), "variant pack pointers"),
        b.Set(*pack, dnn::kVariantPackWorkspace, v, 1, &workspace,
              "variant pack workspace"),
        b.Finalize(*pack, "the variant pack"),
        Check(api_, api_.SetStream(handle_, stream), "cudnnSetStream")}) {
    if (!s.ok()) return s;
  }
  return Check(api_, api_.BackendExecute(handle_, (*plan)->plan, *pack),
               "cudnnBackendExecute");
}

}  // namespace xlite::runtime::cuda
