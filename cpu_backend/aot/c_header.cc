#include "cpu_backend/aot/c_header.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xlite::cpu {

namespace {

// The C type one element is stored as (complex: its component, two per
// element; narrow floats: their bits).
absl::string_view CStorageType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return "float";
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return "double";
    case PrimitiveType::kS8:
    case PrimitiveType::kS4:
    case PrimitiveType::kS2:
    case PrimitiveType::kS1:
      return "int8_t";
    case PrimitiveType::kS16:
      return "int16_t";
    case PrimitiveType::kS32:
      return "int32_t";
    case PrimitiveType::kS64:
      return "int64_t";
    case PrimitiveType::kU16:
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return "uint16_t";
    case PrimitiveType::kU32:
      return "uint32_t";
    case PrimitiveType::kU64:
      return "uint64_t";
    default:  // pred, u8, sub-byte unsigned, the f8 and f4 types
      return "uint8_t";
  }
}

// "float", "uint16_t (bf16 bits)", "float pairs (re, im)".
std::string ElementComment(PrimitiveType type) {
  const absl::string_view c = CStorageType(type);
  if (IsComplex(type)) return absl::StrCat(c, " pairs (re, im)");
  if (IsNarrowFloat(type)) {
    return absl::StrCat(c, " (", PrimitiveTypeName(type), " bits)");
  }
  if (type == PrimitiveType::kPred) return "uint8_t (0 or 1)";
  if (BitWidth(type) < 8) {
    return absl::StrCat(c, " (", PrimitiveTypeName(type), ", one per byte)");
  }
  return std::string(c);
}

// The macros of one array: KIND is "PARAM" or "RESULT".
std::string ArrayMacros(const std::string& prefix, absl::string_view kind,
                        size_t i, const CArray& a, int donor) {
  const Shape& s = a.shape;
  const std::string name = absl::StrCat(prefix, "_", kind, i);
  std::string out =
      absl::StrCat("/* ", kind == "PARAM" ? "Parameter " : "Result ", i, ": ",
                   a.description, ", ", s.ToString(false), ", ", a.bytes,
                   " bytes of ", ElementComment(s.element_type()));
  if (donor >= 0) {
    absl::StrAppend(&out, "; may share the buffer of parameter ", donor,
                    " (donated)");
  }
  absl::StrAppend(&out, " */\n");
  absl::StrAppend(&out, "#define ", name, "_ELEMENT ",
                  CStorageType(s.element_type()), "\n");
  absl::StrAppend(&out, "#define ", name, "_RANK ", s.rank(), "\n");
  if (s.rank() > 0) {
    absl::StrAppend(&out, "#define ", name, "_DIMS {",
                    absl::StrJoin(s.dimensions(), ", "), "}\n");
  }
  absl::StrAppend(&out, "#define ", name, "_ELEMENTS ", s.ElementCount(), "\n");
  absl::StrAppend(&out, "#define ", name, "_BYTES ", a.bytes, "\n");
  if (donor >= 0) {
    absl::StrAppend(&out, "#define ", name, "_SHARES_PARAM ", donor, "\n");
  }
  absl::StrAppend(&out, "\n");
  return out;
}

// `static const TYPE NAME[n] = {...};` (one zero entry when there are none:
// C has no empty arrays).
std::string Table(absl::string_view type, const std::string& name,
                  const std::vector<std::string>& values) {
  return absl::StrCat(
      "static const ", type, " ", name, "[", std::max<size_t>(values.size(), 1),
      "] = {", values.empty() ? "0" : absl::StrJoin(values, ", "), "};\n");
}

std::string Tables(const std::string& name, const CInterface& c) {
  std::vector<std::string> param_bytes, result_bytes, param_shapes,
      result_shapes;
  for (const CArray& a : c.params) {
    param_bytes.push_back(absl::StrCat(a.bytes));
    param_shapes.push_back(absl::StrCat("\"", a.shape.ToString(false), "\""));
  }
  for (const CArray& a : c.results) {
    result_bytes.push_back(absl::StrCat(a.bytes));
    result_shapes.push_back(absl::StrCat("\"", a.shape.ToString(false), "\""));
  }
  return absl::StrCat(
      "/* The same, as tables indexed like params[] and results[]. */\n",
      Table("int64_t", name + "_param_bytes", param_bytes),
      Table("int64_t", name + "_result_bytes", result_bytes),
      Table("char* const", name + "_param_shapes", param_shapes),
      Table("char* const", name + "_result_shapes", result_shapes), "\n");
}

// The enabled features of "+a,-b,+c" as "a b c", wrapped for a comment.
std::string FeatureLines(const std::string& features) {
  std::vector<std::string> lines = {""};
  for (absl::string_view f : absl::StrSplit(features, ',')) {
    if (!absl::ConsumePrefix(&f, "+")) continue;
    if (!lines.back().empty() && lines.back().size() + f.size() + 1 > 72) {
      lines.emplace_back();
    }
    absl::StrAppend(&lines.back(), lines.back().empty() ? "" : " ", f);
  }
  std::string out;
  for (const std::string& line : lines)
    absl::StrAppend(&out, " *   ", line, "\n");
  return out;
}

// `text` as it may stand inside a C comment.
std::string CommentSafe(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"*/", "* /"}, {"\n", " "}});
}

std::string Preamble(const CInterface& c, const CHeaderFacts& facts,
                     const std::string& macro) {
  const std::string& n = c.entry_name;
  return absl::StrCat(
      "/* The C interface of ", n,
      ", an ahead-of-time library compiled by\n"
      " * xlite's hlo-compile from HLO module ",
      CommentSafe(c.module_name),
      ", read from\n"
      " * ",
      CommentSafe(facts.source),
      "\n"
      " * Generated; do not edit.\n *\n"
      " * int ",
      n,
      "(const void* const* params, void* const* results);\n"
      " *   Runs the module once. params[i] points at parameter array i and\n"
      " *   results[j] at result array j, in the order listed below (tuples\n"
      " *   flattened depth first, tokens left out). Every array is dense and\n"
      " *   row-major (C order), its elements stored as XLA literals store\n"
      " *   them: pred one byte 0 or 1, f16/bf16/f8 types as their bits,\n"
      " *   complex as (re, im) pairs, sub-byte integers one per byte. A "
      "buffer\n"
      " *   holds *_BYTES bytes, aligned at least to its element (64 bytes is\n"
      " *   best); one of 0 bytes may be NULL. Result buffers must not "
      "overlap\n"
      " *   one another or a parameter, but a result that *_SHARES_PARAM may\n"
      " *   be that parameter's very buffer (donation: computed in place).\n"
      " *   Parameters are only read. Returns 0 on success, -1 when the\n"
      " *   temporary arena cannot be allocated, or the positive status of a\n"
      " *   failed runtime library call (the results are then unspecified).\n"
      " *   Calls may run at once on different buffers. Large products and\n"
      " *   kernels split over a thread pool the library starts on first use\n"
      " *   (XLITE_CPU_THREADS caps its threads). A call flushes f32 and f64\n"
      " *   denormals, as XLA:CPU does (FTZ and DAZ), and gives the calling\n"
      " *   thread its own mode back.\n *\n"
      " * int ",
      n,
      "_with_temp(const void* const* params,\n"
      " *     void* const* results, void* temp);\n"
      " *   The same on the caller's temporary arena, ",
      macro,
      "_TEMP_BYTES bytes,\n"
      " *   64-byte aligned (may be NULL when that is 0), instead of one\n"
      " *   allocated and freed by each call.\n *\n"
      " * The code is compiled for the CPU hlo-compile ran on (",
      facts.cpu_name,
      ") and\n"
      " * may use any of its features:\n",
      FeatureLines(facts.cpu_features),
      " *\n"
      " * Linking: a shared library needs only the system's C and C++\n"
      " * runtime (libc, libm, libstdc++); an object file holds the same code\n"
      " * and wants them at link time: c++ main.o OBJECT.o -lpthread, or\n"
      " * cc main.o OBJECT.o -lstdc++ -lm -lpthread.\n */\n");
}

}  // namespace

std::string RenderCHeader(const CInterface& c, const CHeaderFacts& facts) {
  const std::string& n = c.entry_name;
  const std::string macro = absl::AsciiStrToUpper(n);
  std::string out = Preamble(c, facts, macro);
  absl::StrAppend(&out, "#ifndef ", macro, "_AOT_H_\n#define ", macro,
                  "_AOT_H_\n\n#include <stdint.h>\n\n#ifdef __cplusplus\n"
                  "extern \"C\" {\n#endif\n\n");
  absl::StrAppend(&out, "#define ", macro, "_NUM_PARAMS ", c.params.size(),
                  "\n#define ", macro, "_NUM_RESULTS ", c.results.size(),
                  "\n#define ", macro, "_TEMP_BYTES ", facts.layout.temp_bytes,
                  "\n\n");
  for (size_t i = 0; i < c.params.size(); ++i) {
    absl::StrAppend(&out, ArrayMacros(macro, "PARAM", i, c.params[i], -1));
  }
  for (size_t i = 0; i < c.results.size(); ++i) {
    absl::StrAppend(&out, ArrayMacros(macro, "RESULT", i, c.results[i],
                                      facts.layout.donors[i]));
  }
  absl::StrAppend(&out, Tables(n, c));
  absl::StrAppend(&out, "int ", n,
                  "(const void* const* params, void* const* results);\n",
                  "int ", n,
                  "_with_temp(const void* const* params, void* const* "
                  "results,\n",
                  std::string(n.size() + 16, ' '), "void* temp);\n\n");
  absl::StrAppend(&out, "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n",
                  "#endif  /* ", macro, "_AOT_H_ */\n");
  return out;
}

}  // namespace xlite::cpu
