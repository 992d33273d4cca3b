// Value grammars of the HLO text format: shapes, layouts and the simple
// lists and enums. Literals are read by parser_literals.cc; structured
// attribute values by parser_attribute_values.cc and parser_sharding.cc.

#include <cctype>
#include <iterator>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/attributes.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
bool Parser::AtShape() {
  TextScanner& s = scanner_;
  if (s.Peek() == '(') {
    // A tuple shape starts with '(' then a shape or ')'.
    const size_t saved = s.RawPosition();
    s.Consume('(');
    bool result = s.Peek() == ')' || AtShape();
    s.Reset(saved);
    return result;
  }
  if (s.Peek() == 'b' && s.PeekAt(1) == '(') {
    // A buffer shape, b(f32[32]); no opcode is named "b".
    const size_t saved = s.RawPosition();
    s.ConsumeString("b(");
    const bool result = AtShape();
    s.Reset(saved);
    return result;
  }
  const size_t saved = s.RawPosition();
  std::string id = s.ReadIdentifier();
  bool result = !id.empty() && ParsePrimitiveTypeName(id).has_value() &&
                s.RawPosition() < s.text().size() &&
                s.text()[s.RawPosition()] == '[';
  s.Reset(saved);
  return result;
}

bool Parser::ParseShape(Shape* shape) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > kMaxNesting) {
    --recursion_depth_;
    return s.Error("shape nested too deeply");
  }
  bool ok;
  if (s.Peek() == '(') {
    s.Consume('(');
    std::vector<Shape> elements;
    ok = true;
    if (!s.Consume(')')) {
      do {
        Shape element;
        if (!ParseShape(&element)) {
          ok = false;
          break;
        }
        elements.push_back(std::move(element));
      } while (s.Consume(','));
      ok = ok && s.Expect(')', "to close a tuple shape");
    }
    if (ok) *shape = Shape::Tuple(std::move(elements));
  } else if (s.Peek() == 'b' && s.PeekAt(1) == '(') {
    // A buffer, b(f32[32]{0}): XLA's mutable array for pin/unpin.
    const size_t start = s.Position();
    s.ConsumeString("b(");
    Shape array;
    if (s.Peek() == '(') {
      ok = s.ErrorAt(start, "a buffer holds an array shape, not a tuple");
    } else {
      ok = ParseArrayShape(&array) && s.Expect(')', "to close a buffer shape");
    }
    if (ok && !array.IsArray()) {
      ok = s.ErrorAt(start, absl::StrCat("a buffer holds an array, not ",
                                         array.ToString()));
    }
    if (ok) *shape = Shape::Buffer(std::move(array));
  } else {
    ok = ParseArrayShape(shape);
  }
  --recursion_depth_;
  return ok;
}

bool Parser::ParseArrayShape(Shape* shape) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  std::string type_name = s.ReadIdentifier();
  std::optional<PrimitiveType> type = ParsePrimitiveTypeName(type_name);
  if (!type.has_value()) {
    if (type_name.empty()) return s.ErrorAt(start, "expected a shape");
    return s.ErrorAt(start,
                     absl::StrCat("unknown element type '", type_name, "'"));
  }
  if (!s.Expect('[', "after the element type")) return false;
  *shape = Shape(*type, {});
  if (!s.Consume(']')) {
    do {
      const size_t dim_pos = s.Position();
      if (s.Consume('?')) {
        shape->add_dimension(Shape::kUnboundedSize, true);
        continue;
      }
      const bool bounded = s.ConsumeString("<=");
      int64_t size;
      if (!s.ReadInt64(&size, "as a dimension size")) return false;
      if (size < 0) {
        return s.ErrorAt(dim_pos,
                         absl::StrCat("negative dimension size ", size));
      }
      shape->add_dimension(size, bounded);
    } while (s.Consume(','));
    if (!s.Expect(']', "to close the dimensions")) return false;
  }
  if ((shape->IsToken() || shape->IsOpaque()) && shape->rank() != 0) {
    return s.ErrorAt(start,
                     absl::StrCat(type_name, " shapes cannot have dimensions"));
  }
  // A layout follows immediately: "f32[2]{0}". After whitespace, or when
  // what follows the '{' is not a dimension number, ':' or '}', the '{'
  // starts something else: "-> f32[2]{" opens a computation body, as XLA
  // decides by looking at the token after the brace.
  const size_t raw = s.RawPosition();
  if (raw < s.text().size() && s.text()[raw] == '{' && shape->IsArray() &&
      StartsLayout(raw)) {
    if (!ParseLayout(shape)) return false;
    absl::Status valid = ValidateShape(*shape);
    if (!valid.ok()) return s.ErrorAt(start, valid.message());
  } else if (options_.fill_missing_layouts) {
    shape->FillMissingLayouts();
  }
  return true;
}

bool Parser::StartsLayout(size_t brace) {
  TextScanner& s = scanner_;
  const size_t saved = s.RawPosition();
  s.Reset(brace + 1);
  const char next = s.Peek();
  const char after = s.PeekAt(1);
  s.Reset(saved);
  return std::isdigit(static_cast<unsigned char>(next)) || next == ':' ||
         next == '}' ||
         (next == '-' && std::isdigit(static_cast<unsigned char>(after)));
}

bool Parser::ParseLayout(Shape* shape) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a layout")) return false;
  Layout layout;
  if (s.Peek() != ':' && s.Peek() != '}') {
    do {
      int64_t d;
      if (!s.ReadInt64(&d, "in the layout's minor-to-major list")) return false;
      layout.mutable_minor_to_major().push_back(d);
    } while (s.Consume(','));
  }
  if (s.Consume(':')) {
    // XLA reads the parts in one fixed order, each at most once.
    static constexpr absl::string_view kPartOrder[] = {"T", "L",  "#", "*", "E",
                                                       "S", "SC", "P", "M"};
    int last_part = -1;
    while (s.Peek() != '}' && !s.AtEnd() && !s.has_error()) {
      const size_t item_pos = s.Position();
      for (int part = 0; part < static_cast<int>(std::size(kPartOrder));
           ++part) {
        const absl::string_view name = kPartOrder[part];
        const absl::string_view rest = s.text().substr(s.RawPosition());
        if (!absl::StartsWith(rest, name) ||
            (name == "S" && absl::StartsWith(rest, "SC"))) {
          continue;
        }
        if (part <= last_part) {
          return s.ErrorAt(
              item_pos,
              absl::StrCat("layout part ", name,
                           part == last_part
                               ? " is given twice"
                               : absl::StrCat(" must come before ",
                                              kPartOrder[last_part]),
                           " (XLA's order: T, L, #, *, E, S, SC, P, M)"));
        }
        last_part = part;
        break;
      }
      auto read_paren_int = [&](int64_t* value, absl::string_view what) {
        return s.Expect('(', what) && s.ReadInt64(value, what) &&
               s.Expect(')', what);
      };
      auto read_paren_type = [&](PrimitiveType* type, absl::string_view what) {
        if (!s.Expect('(', what)) return false;
        const size_t p = s.Position();
        std::string name = s.ReadIdentifier();
        auto t = ParsePrimitiveTypeName(name);
        if (!t.has_value()) {
          return s.ErrorAt(p, absl::StrCat("expected an element type ", what));
        }
        *type = *t;
        return s.Expect(')', what);
      };
      if (s.ConsumeString("SC")) {
        SplitConfig split;
        if (!s.Expect('(', "after SC") ||
            !s.ReadInt64(&split.dimension, "in SC(...)") ||
            !s.Expect(':', "in SC(dim:indices)")) {
          return false;
        }
        if (s.Peek() != ')') {
          do {
            int64_t v;
            if (!s.ReadInt64(&v, "in SC(...)")) return false;
            split.split_indices.push_back(v);
          } while (s.Consume(','));
        }
        if (!s.Expect(')', "to close SC(...)")) return false;
        layout.mutable_split_configs().push_back(std::move(split));
      } else if (s.Consume('T')) {
        if (s.Peek() != '(') return s.Error("expected '(' after T in a layout");
        while (s.Peek() == '(') {
          s.Consume('(');
          Tile tile;
          if (s.Peek() != ')') {
            do {
              if (s.Consume('*')) {
                tile.dimensions.push_back(Tile::kCombineDimension);
              } else {
                int64_t v;
                if (!s.ReadInt64(&v, "in a tile")) return false;
                tile.dimensions.push_back(v);
              }
            } while (s.Consume(','));
          }
          if (!s.Expect(')', "to close a tile")) return false;
          layout.mutable_tiles().push_back(std::move(tile));
        }
      } else if (s.Consume('L')) {
        int64_t v;
        if (!read_paren_int(&v, "in L(...)")) return false;
        layout.set_tail_padding_alignment_in_elements(v);
      } else if (s.Consume('#')) {
        PrimitiveType t;
        if (!read_paren_type(&t, "in #(...)")) return false;
        layout.set_index_primitive_type(t);
      } else if (s.Consume('*')) {
        PrimitiveType t;
        if (!read_paren_type(&t, "in *(...)")) return false;
        layout.set_pointer_primitive_type(t);
      } else if (s.Consume('E')) {
        int64_t v;
        if (!read_paren_int(&v, "in E(...)")) return false;
        layout.set_element_size_in_bits(v);
      } else if (s.Consume('S')) {
        int64_t v;
        if (!read_paren_int(&v, "in S(...)")) return false;
        layout.set_memory_space(v);
      } else if (s.Consume('M')) {
        int64_t v;
        if (!read_paren_int(&v, "in M(...)")) return false;
        layout.set_dynamic_shape_metadata_prefix_bytes(v);
      } else if (s.Consume('P')) {
        Shape physical;
        if (!s.Expect('(', "after P") || !ParseShape(&physical) ||
            !s.Expect(')', "to close P(...)")) {
          return false;
        }
        layout.set_physical_shape(physical);
      } else {
        return s.ErrorAt(item_pos,
                         "unknown layout attribute; expected T, L, #, *, E, S, "
                         "SC, P or M");
      }
    }
  }
  if (!s.Expect('}', "to close the layout")) return false;
  shape->set_layout(layout);
  return true;
}

// ------------------------------------------------------------- simple lists

bool Parser::ParseBracedInts(std::vector<int64_t>* values,
                             absl::string_view what) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', What("to start ", what))) return false;
  values->clear();
  if (s.Consume('}')) return true;
  do {
    int64_t v;
    if (!s.ReadInt64(&v, What("in ", what))) return false;
    values->push_back(v);
  } while (s.Consume(','));
  return s.Expect('}', What("to close ", what));
}

bool Parser::ParseBracedIntLists(std::vector<std::vector<int64_t>>* values,
                                 absl::string_view what) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', What("to start ", what))) return false;
  values->clear();
  if (s.Consume('}')) return true;
  do {
    std::vector<int64_t> inner;
    if (!ParseBracedInts(&inner, what)) return false;
    values->push_back(std::move(inner));
  } while (s.Consume(','));
  return s.Expect('}', What("to close ", what));
}

bool Parser::ParseShapeIndex(ShapeIndex* index) {
  std::vector<int64_t> values;
  if (!ParseBracedInts(&values, "a shape index")) return false;
  index->assign(values.begin(), values.end());
  return true;
}

bool Parser::ParseBoolList(std::vector<bool>* values, bool allow_single) {
  TextScanner& s = scanner_;
  values->clear();
  if (allow_single && s.Peek() != '{') {
    bool b;
    if (!s.ReadBool(&b, "")) return false;
    values->push_back(b);
    return true;
  }
  if (!s.Expect('{', "to start a list of booleans")) return false;
  if (s.Consume('}')) return true;
  do {
    bool b;
    if (!s.ReadBool(&b, "in a list of booleans")) return false;
    values->push_back(b);
  } while (s.Consume(','));
  return s.Expect('}', "to close a list of booleans");
}

bool Parser::ParseShapeList(std::vector<Shape>* shapes) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a list of shapes")) return false;
  if (s.Consume('}')) return true;
  do {
    Shape shape;
    if (!ParseShape(&shape)) return false;
    shapes->push_back(std::move(shape));
  } while (s.Consume(','));
  return s.Expect('}', "to close a list of shapes");
}

template <typename Enum>
bool Parser::ParseEnum(Enum* value,
                       std::optional<Enum> (*parse)(absl::string_view),
                       absl::string_view what) {
  TextScanner& s = scanner_;
  const size_t p = s.Position();
  std::string id = s.ReadIdentifier();
  std::optional<Enum> e = parse(id);
  if (!e.has_value()) {
    return s.ErrorAt(p, absl::StrCat("unknown ", what, " '", id, "'"));
  }
  *value = *e;
  return true;
}

// Instantiations used by parser.cc.
template bool Parser::ParseEnum(
    ComparisonDirection*,
    std::optional<ComparisonDirection> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    ComparisonType*, std::optional<ComparisonType> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    FusionKind*, std::optional<FusionKind> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(FftType*,
                                std::optional<FftType> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(
    RandomDistribution*,
    std::optional<RandomDistribution> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    RandomAlgorithm*, std::optional<RandomAlgorithm> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    CustomCallApiVersion*,
    std::optional<CustomCallApiVersion> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    CustomCallSchedule*,
    std::optional<CustomCallSchedule> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    PaddingType*, std::optional<PaddingType> (*)(absl::string_view),
    absl::string_view);
template bool Parser::ParseEnum(
    TriangularSolveTranspose*,
    std::optional<TriangularSolveTranspose> (*)(absl::string_view),
    absl::string_view);

bool Parser::ParsePrecisionList(std::vector<Precision>* precisions) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start operand_precision")) return false;
  precisions->clear();
  if (s.Consume('}')) return true;
  do {
    const size_t p = s.Position();
    std::string id = s.ReadIdentifier();
    std::string lower;
    for (char c : id)
      lower.push_back(std::tolower(static_cast<unsigned char>(c)));
    std::optional<Precision> precision = ParsePrecision(lower);
    if (!precision.has_value()) {
      return s.ErrorAt(p, absl::StrCat("unknown precision '", id,
                                       "'; expected default, high, highest or "
                                       "packed_nibble"));
    }
    precisions->push_back(*precision);
  } while (s.Consume(','));
  return s.Expect('}', "to close operand_precision");
}

}  // namespace parser_internal
}  // namespace xlite
