#include "runtime/cuda/cublas_lt.h"

#include <dlfcn.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/cuda/cublas_lt_params.h"
#include "runtime/cuda/dynamic_library.h"

namespace xlite::runtime::cuda {
namespace {

absl::StatusOr<lt::Api> Load() {
  std::vector<std::string> names;
  void* library = OpenFirstLibrary(
      "XLITE_CUBLASLT",
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, names);
  if (library == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cuBLASLt not found (tried ", absl::StrJoin(names, ", "),
        "): GEMM thunks need it; set XLITE_CUBLASLT to libcublasLt.so's "
        "path"));
  }
  lt::Api api{};
  std::string missing;
  BindSymbol(library, "cublasLtCreate", api.Create, missing);
  BindSymbol(library, "cublasLtDestroy", api.Destroy, missing);
  BindSymbol(library, "cublasLtMatmulDescCreate", api.MatmulDescCreate,
             missing);
  BindSymbol(library, "cublasLtMatmulDescDestroy", api.MatmulDescDestroy,
             missing);
  BindSymbol(library, "cublasLtMatmulDescSetAttribute",
             api.MatmulDescSetAttribute, missing);
  BindSymbol(library, "cublasLtMatrixLayoutCreate", api.MatrixLayoutCreate,
             missing);
  BindSymbol(library, "cublasLtMatrixLayoutDestroy", api.MatrixLayoutDestroy,
             missing);
  BindSymbol(library, "cublasLtMatrixLayoutSetAttribute",
             api.MatrixLayoutSetAttribute, missing);
  BindSymbol(library, "cublasLtMatmulPreferenceCreate",
             api.MatmulPreferenceCreate, missing);
  BindSymbol(library, "cublasLtMatmulPreferenceDestroy",
             api.MatmulPreferenceDestroy, missing);
  BindSymbol(library, "cublasLtMatmulPreferenceSetAttribute",
             api.MatmulPreferenceSetAttribute, missing);
  BindSymbol(library, "cublasLtMatmulAlgoGetHeuristic",
             api.MatmulAlgoGetHeuristic, missing);
  BindSymbol(library, "cublasLtMatmul", api.Matmul, missing);
  std::string optional;
  BindSymbol(library, "cublasLtGetVersion", api.GetVersion, optional);
  BindSymbol(library, "cublasLtMatmulAlgoConfigGetAttribute",
             api.MatmulAlgoConfigGetAttribute, optional);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the cuBLASLt library found lacks ", missing));
  }
  return api;
}

absl::Status Check(int status, absl::string_view what) {
  if (status == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, " failed (cublasStatus_t ", status, ")"));
}

// The descriptors of one matmul, destroyed with it.
class Descriptors {
 public:
  explicit Descriptors(const lt::Api& api) : api_(api) {}
  ~Descriptors() {
    for (lt::MatrixLayout* l : layouts_) api_.MatrixLayoutDestroy(l);
    if (desc_ != nullptr) api_.MatmulDescDestroy(desc_);
    if (pref_ != nullptr) api_.MatmulPreferenceDestroy(pref_);
  }
  lt::MatmulDesc*& desc() { return desc_; }
  lt::Preference*& pref() { return pref_; }
  /// A, B, C, D after Build.
  lt::MatrixLayout* const* layouts() const { return layouts_.data(); }

  /// The matmul descriptor with its attributes and pointers (`args`: one
  /// device address per operand and result leaf), and the four layouts.
  absl::Status Build(const GemmDescription& gemm, const CublasLtGemmParams& p,
                     const std::vector<uint64_t>& args);

  template <typename T>
  absl::Status Set(int32_t attribute, const T& value) {
    return Check(
        api_.MatmulDescSetAttribute(desc_, attribute, &value, sizeof(value)),
        absl::StrCat("cublasLtMatmulDescSetAttribute(", attribute, ")"));
  }

  absl::StatusOr<lt::MatrixLayout*> Layout(const CublasLtMatrix& m) {
    lt::MatrixLayout* l = nullptr;
    if (absl::Status s = Check(
            api_.MatrixLayoutCreate(&l, m.type, m.rows, m.cols, m.leading_dim),
            "cublasLtMatrixLayoutCreate");
        !s.ok()) {
      return s;
    }
    layouts_.push_back(l);
    const int32_t order = lt::kOrderCol;
    int status = api_.MatrixLayoutSetAttribute(l, lt::kLayoutOrder, &order,
                                               sizeof(order));
    if (status == 0 && m.batch_count > 1) {
      status = api_.MatrixLayoutSetAttribute(
          l, lt::kLayoutBatchCount, &m.batch_count, sizeof(m.batch_count));
      if (status == 0) {
        status = api_.MatrixLayoutSetAttribute(l, lt::kLayoutStridedBatchOffset,
                                               &m.batch_stride,
                                               sizeof(m.batch_stride));
      }
    }
    if (absl::Status s = Check(status, "cublasLtMatrixLayoutSetAttribute");
        !s.ok()) {
      return s;
    }
    return l;
  }

 private:
  const lt::Api& api_;
  lt::MatmulDesc* desc_ = nullptr;
  lt::Preference* pref_ = nullptr;
  std::vector<lt::MatrixLayout*> layouts_;
};

// The epilogue's pointers: bias, aux, f8 scales, amax.
absl::Status SetPointers(Descriptors& desc, const GemmDescription& gemm,
                         const CublasLtGemmParams& p,
                         const std::vector<uint64_t>& args) {
  const GemmCallLayout& l = gemm.layout;
  const size_t results = gemm.operands.size();
  auto set = [&](int32_t attribute, uint64_t address) {
    const void* pointer = reinterpret_cast<const void*>(address);
    return desc.Set(attribute, pointer);
  };
  absl::Status s;
  if (l.bias >= 0) {
    s.Update(set(lt::kDescBiasPointer, args[l.bias]));
    s.Update(desc.Set(lt::kDescBiasDataType, p.bias_type));
  }
  if (l.aux >= 0) {
    s.Update(set(lt::kDescEpilogueAuxPointer, args[results + l.aux]));
    s.Update(desc.Set(lt::kDescEpilogueAuxLd, p.aux_leading_dim));
    if (p.d.batch_count > 1) {
      s.Update(desc.Set(lt::kDescEpilogueAuxBatchStride, p.aux_batch_stride));
    }
  }
  // cuBLASLt's A and B scales follow the operands when they trade places.
  const int64_t scale_a = p.swapped ? l.b_scale : l.a_scale;
  const int64_t scale_b = p.swapped ? l.a_scale : l.b_scale;
  if (scale_a >= 0) s.Update(set(lt::kDescAScalePointer, args[scale_a]));
  if (scale_b >= 0) s.Update(set(lt::kDescBScalePointer, args[scale_b]));
  if (l.c_scale >= 0) s.Update(set(lt::kDescCScalePointer, args[l.c_scale]));
  if (l.d_scale >= 0) s.Update(set(lt::kDescDScalePointer, args[l.d_scale]));
  if (l.amax >= 0) s.Update(set(lt::kDescAmaxDPointer, args[results + l.amax]));
  return s;
}

absl::Status Descriptors::Build(const GemmDescription& gemm,
                                const CublasLtGemmParams& p,
                                const std::vector<uint64_t>& args) {
  if (absl::Status s =
          Check(api_.MatmulDescCreate(&desc_, p.compute_type, p.scale_type),
                "cublasLtMatmulDescCreate");
      !s.ok()) {
    return s;
  }
  absl::Status s = Set(lt::kDescPointerMode, lt::kPointerModeHost);
  s.Update(Set(lt::kDescTransA, p.trans_a));
  s.Update(Set(lt::kDescTransB, p.trans_b));
  s.Update(Set(lt::kDescEpilogue, static_cast<uint32_t>(p.epilogue)));
  s.Update(SetPointers(*this, gemm, p, args));
  if (!s.ok()) return s;
  for (const CublasLtMatrix* m : {&p.a, &p.b, &p.c, &p.d}) {
    if (absl::StatusOr<lt::MatrixLayout*> l = Layout(*m); !l.ok()) {
      return l.status();
    }
  }
  return absl::OkStatus();
}

// alpha and beta in the scale type, as host values.
struct Scalars {
  std::complex<double> alpha64, beta64;
  std::complex<float> alpha32, beta32;
  const void* alpha = nullptr;
  const void* beta = nullptr;
};

void MakeScalars(const CublasLtGemmParams& p, Scalars& s) {
  s.alpha64 = {p.alpha_real, p.alpha_imag};
  s.beta64 = {p.beta, 0};
  s.alpha32 = {static_cast<float>(p.alpha_real),
               static_cast<float>(p.alpha_imag)};
  s.beta32 = {static_cast<float>(p.beta), 0};
  const bool wide = p.scale_type == lt::kR64F || p.scale_type == lt::kC64F;
  // A real scalar is the real part, which std::complex stores first.
  s.alpha = wide ? static_cast<const void*>(&s.alpha64) : &s.alpha32;
  s.beta = wide ? static_cast<const void*>(&s.beta64) : &s.beta32;
}

// cublasLtMatmulAlgoGetHeuristic's best `count` answers for `desc` within
// `workspace_bytes`, without those it marks as failing.
absl::StatusOr<std::vector<lt::HeuristicResult>> Propose(
    const lt::Api& api, lt::Handle* handle, Descriptors& desc,
    int64_t workspace_bytes, int count) {
  if (absl::Status s = Check(api.MatmulPreferenceCreate(&desc.pref()),
                             "cublasLtMatmulPreferenceCreate");
      !s.ok()) {
    return s;
  }
  const uint64_t max_workspace = workspace_bytes;
  if (absl::Status s = Check(api.MatmulPreferenceSetAttribute(
                                 desc.pref(), lt::kPrefMaxWorkspaceBytes,
                                 &max_workspace, sizeof(max_workspace)),
                             "cublasLtMatmulPreferenceSetAttribute");
      !s.ok()) {
    return s;
  }
  std::vector<lt::HeuristicResult> results(std::max(count, 1));
  int found = 0;
  lt::MatrixLayout* const* layouts = desc.layouts();
  if (absl::Status s =
          Check(api.MatmulAlgoGetHeuristic(
                    handle, desc.desc(), layouts[0], layouts[1], layouts[2],
                    layouts[3], desc.pref(), static_cast<int>(results.size()),
                    results.data(), &found),
                "cublasLtMatmulAlgoGetHeuristic");
      !s.ok()) {
    return s;
  }
  results.resize(std::clamp<int>(found, 0, results.size()));
  std::erase_if(results,
                [](const lt::HeuristicResult& r) { return r.state != 0; });
  return results;
}

}  // namespace

absl::StatusOr<const lt::Api*> LoadCublasLt() {
  static const absl::StatusOr<lt::Api>* const api =
      new absl::StatusOr<lt::Api>(Load());
  if (!api->ok()) return api->status();
  return &**api;
}

absl::StatusOr<std::unique_ptr<CublasLtRunner>> CublasLtRunner::Create() {
  absl::StatusOr<const lt::Api*> api = LoadCublasLt();
  if (!api.ok()) return api.status();
  lt::Handle* handle = nullptr;
  if (absl::Status s = Check((*api)->Create(&handle), "cublasLtCreate");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<CublasLtRunner>(new CublasLtRunner(**api, handle));
}

CublasLtRunner::~CublasLtRunner() { api_.Destroy(handle_); }

absl::Status CheckCublasLtDescriptors(const GemmDescription& gemm) {
  absl::StatusOr<const lt::Api*> api = LoadCublasLt();
  if (!api.ok()) return api.status();
  absl::StatusOr<CublasLtGemmParams> p = CublasLtParamsFor(gemm);
  if (!p.ok()) return p.status();
  Descriptors desc(**api);
  return desc.Build(gemm, *p, std::vector<uint64_t>(gemm.ArgumentCount(), 0));
}

absl::StatusOr<std::vector<lt::HeuristicResult>> CublasLtRunner::Heuristics(
    const GemmDescription& gemm, const std::vector<uint64_t>& args,
    int64_t workspace_bytes, int count) const {
  absl::StatusOr<CublasLtGemmParams> p = CublasLtParamsFor(gemm);
  if (!p.ok()) return p.status();
  if (static_cast<int64_t>(args.size()) != gemm.ArgumentCount()) {
    return absl::InvalidArgumentError("GEMM thunk argument count");
  }
  Descriptors desc(api_);
  if (absl::Status s = desc.Build(gemm, *p, args); !s.ok()) return s;
  return Propose(api_, handle_, desc, workspace_bytes, count);
}

absl::Status CublasLtRunner::Run(const GemmDescription& gemm,
                                 const std::vector<uint64_t>& args,
                                 int64_t workspace_bytes, void* stream,
                                 const GemmAlgorithm* algorithm) const {
  absl::StatusOr<CublasLtGemmParams> p = CublasLtParamsFor(gemm);
  if (!p.ok()) return p.status();
  if (static_cast<int64_t>(args.size()) != gemm.ArgumentCount()) {
    return absl::InvalidArgumentError("GEMM thunk argument count");
  }
  Descriptors desc(api_);
  if (absl::Status s = desc.Build(gemm, *p, args); !s.ok()) return s;
  lt::MatmulAlgo algo{};
  if (algorithm != nullptr) {
    static_assert(sizeof(algo.data) == sizeof(algorithm->data));
    std::memcpy(algo.data, algorithm->data.data(), sizeof(algo.data));
  } else {
    absl::StatusOr<std::vector<lt::HeuristicResult>> first =
        Propose(api_, handle_, desc, workspace_bytes, 1);
    if (!first.ok()) return first.status();
    if (first->empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "cuBLASLt has no algorithm for ", GemmDescriptionToString(gemm)));
    }
    algo = first->front().algo;
  }
  lt::MatrixLayout* const* layouts = desc.layouts();
  const size_t results = gemm.operands.size();
  auto at = [&](int64_t i) { return reinterpret_cast<void*>(args[i]); };
  void* d = at(results);
  const void* c = gemm.layout.c >= 0 ? at(gemm.layout.c) : d;
  void* workspace = gemm.layout.workspace >= 0
                        ? at(results + gemm.layout.workspace)
                        : nullptr;
  Scalars scalars;
  MakeScalars(*p, scalars);
  return Check(
      api_.Matmul(handle_, desc.desc(), scalars.alpha, at(p->a_operand),
                  layouts[0], at(p->b_operand), layouts[1], scalars.beta, c,
                  layouts[2], d, layouts[3], &algo, workspace, workspace_bytes,
                  static_cast<lt::Stream*>(stream)),
      "cublasLtMatmul");
}

std::string CublasLtRunner::version() const {
  if (api_.GetVersion == nullptr) return "unknown";
  return absl::StrCat(api_.GetVersion());
}

std::string CublasLtRunner::Describe(const lt::MatmulAlgo& algorithm) const {
  struct Attribute {
    const char* name;
    int32_t id;
    size_t bytes;
  };
  static constexpr Attribute kAttributes[] = {
      {"id", lt::kAlgoConfigId, 4},
      {"tile", lt::kAlgoConfigTileId, 4},
      {"stages", lt::kAlgoConfigStagesId, 4},
      {"splitk", lt::kAlgoConfigSplitKNum, 4},
      {"reduction", lt::kAlgoConfigReduction, 4},
      {"swizzle", lt::kAlgoConfigCtaSwizzling, 4},
      {"custom", lt::kAlgoConfigCustomOption, 4},
      {"inner", lt::kAlgoConfigInnerShapeId, 2},
      {"cluster", lt::kAlgoConfigClusterShapeId, 2},
  };
  std::vector<std::string> parts;
  for (const Attribute& a : kAttributes) {
    // Each value is at most 4 bytes and little-endian: read into a zeroed
    // word, whatever its width (the library checks the size given).
    uint32_t value = 0;
    size_t written = 0;
    if (api_.MatmulAlgoConfigGetAttribute == nullptr ||
        api_.MatmulAlgoConfigGetAttribute(&algorithm, a.id, &value, a.bytes,
                                          &written) != 0) {
      GemmAlgorithm words;
      std::memcpy(words.data.data(), algorithm.data, sizeof(algorithm.data));
      return GemmAlgorithmWords(words);
    }
    parts.push_back(absl::StrCat(a.name, "=", static_cast<int32_t>(value)));
  }
  return absl::StrJoin(parts, " ");
}

}  // namespace xlite::runtime::cuda
