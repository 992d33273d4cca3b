// NumPy .npy and .npz (zip) reading and writing.
//
// .npy: magic "\x93NUMPY", version, little-endian header length, a Python
// dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded
// with spaces to a multiple of 64 bytes, then the raw data.
// .npz: a zip archive of NAME.npy members, stored or deflated.

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "hlo/ir/attributes.h"
#include "runtime/literal_io.h"

namespace xlite {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

absl::Status Bad(const std::string& name, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": error: ", what));
}

// ----------------------------------------------------------- header dict

// The few Python literals a .npy header holds.
struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  bool Parse(Header* header, std::string* error) {
    bool have_descr = false, have_order = false, have_shape = false;
    Skip();
    if (!Consume('{')) return Fail("the header is not a dict", error);
    while (true) {
      Skip();
      if (Consume('}')) break;
      std::string key;
      if (!ReadString(&key)) return Fail("expected a quoted key", error);
      Skip();
      if (!Consume(':')) return Fail("expected ':' after a key", error);
      Skip();
      if (key == "descr") {
        if (!ReadString(&header->descr)) {
          return Fail(
              "descr is not a simple dtype string (structured "
              "arrays are not supported)",
              error);
        }
        have_descr = true;
      } else if (key == "fortran_order") {
        if (ConsumeWord("True")) {
          header->fortran_order = true;
        } else if (ConsumeWord("False")) {
          header->fortran_order = false;
        } else {
          return Fail("fortran_order is not True or False", error);
        }
        have_order = true;
      } else if (key == "shape") {
        if (!ReadTuple(&header->shape)) {
          return Fail("shape is not a tuple of integers", error);
        }
        have_shape = true;
      } else {
        return Fail(absl::StrCat("unknown header key '", key, "'"), error);
      }
      Skip();
      if (Consume(',')) continue;
      Skip();
      if (Consume('}')) break;
      return Fail("expected ',' or '}' in the header", error);
    }
    if (!have_descr || !have_order || !have_shape) {
      return Fail("the header lacks descr, fortran_order or shape", error);
    }
    return true;
  }

 private:
  static bool Fail(absl::string_view what, std::string* error) {
    *error = std::string(what);
    return false;
  }
  void Skip() {
    while (pos_ < text_.size() &&
           absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool ReadString(std::string* out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return false;
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool ReadTuple(std::vector<int64_t>* out) {
    if (!Consume('(')) return false;
    while (true) {
      Skip();
      if (Consume(')')) return true;
      size_t end = pos_;
      while (end < text_.size() &&
             absl::ascii_isdigit(static_cast<unsigned char>(text_[end]))) {
        ++end;
      }
      int64_t v;
      if (end == pos_ ||
          !absl::SimpleAtoi(text_.substr(pos_, end - pos_), &v)) {
        return false;
      }
      pos_ = end;
      // Python 2 era files write longs as "3L".
      Consume('L');
      out->push_back(v);
      Skip();
      if (Consume(',')) continue;
      Skip();
      if (Consume(')')) return true;
      return false;
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// ------------------------------------------------------------------ dtype

struct DtypeInfo {
  PrimitiveType type;
  const char* descr;  // as numpy writes it
};

// Standard NumPy dtypes.
constexpr DtypeInfo kDtypes[] = {
    {PrimitiveType::kPred, "|b1"}, {PrimitiveType::kS8, "|i1"},
    {PrimitiveType::kU8, "|u1"},   {PrimitiveType::kS16, "<i2"},
    {PrimitiveType::kU16, "<u2"},  {PrimitiveType::kS32, "<i4"},
    {PrimitiveType::kU32, "<u4"},  {PrimitiveType::kS64, "<i8"},
    {PrimitiveType::kU64, "<u8"},  {PrimitiveType::kF16, "<f2"},
    {PrimitiveType::kF32, "<f4"},  {PrimitiveType::kF64, "<f8"},
    {PrimitiveType::kC64, "<c8"},  {PrimitiveType::kC128, "<c16"},
};

// A parsed descr: byte order, kind and item size.
struct Descr {
  char order = '<';  // '<', '>' or '|'
  char kind = 0;     // b i u f c V
  int size = 0;
};

bool ParseDescr(absl::string_view text, Descr* d) {
  if (text.size() < 3) return false;
  d->order = text[0] == '=' ? '<' : text[0];
  if (d->order != '<' && d->order != '>' && d->order != '|') return false;
  d->kind = text[1];
  return absl::SimpleAtoi(text.substr(2), &d->size) && d->size > 0 &&
         d->size <= 16;
}

// The xlite type of a typed descr ("" kind V has none).
std::optional<PrimitiveType> TypeOfDescr(const Descr& d) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.descr[1] == d.kind &&
        absl::string_view(info.descr + 2) == absl::StrCat(d.size)) {
      return info.type;
    }
  }
  // ml_dtypes' float8_e5m2 reports itself as '<f1'.
  if (d.kind == 'f' && d.size == 1) return PrimitiveType::kF8E5M2;
  return std::nullopt;
}

// The descr numpy writes for an array of `type`; ml_dtypes types become
// raw void data of their storage size.
std::string DescrOfType(PrimitiveType type) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.type == type) return info.descr;
  }
  return absl::StrCat("<V", StorageBytes(type));
}

bool IsSubByte(PrimitiveType type) { return BitWidth(type) < 8; }

std::string ShapeTuple(const Shape& shape) {
  if (shape.rank() == 1) return absl::StrCat("(", shape.dimensions(0), ",)");
  return absl::StrCat("(", absl::StrJoin(shape.dimensions(), ", "), ")");
}

uint32_t Le32(absl::string_view b, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}
uint16_t Le16(absl::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) |
                               (static_cast<uint8_t>(b[at + 1]) << 8));
}
uint64_t Le64(absl::string_view b, size_t at) {
  return Le32(b, at) | (static_cast<uint64_t>(Le32(b, at + 4)) << 32);
}
void Put16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}
void Put32(std::string* out, uint32_t v) {
  Put16(out, static_cast<uint16_t>(v & 0xffff));
  Put16(out, static_cast<uint16_t>(v >> 16));
}

}  // namespace

// -------------------------------------------------------------------- npy

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 const std::string& name,
                                 std::optional<PrimitiveType> expected) {
  if (bytes.size() < 10 || bytes.substr(0, kMagicLen) != kMagic) {
    return Bad(name, "not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_start, header_len;
  if (major == 1) {
    header_start = 10;
    header_len = Le16(bytes, 8);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(name, "truncated .npy header");
    header_start = 12;
    header_len = Le32(bytes, 8);
  } else {
    return Bad(name, absl::StrCat(".npy format version ", major,
                                  " is not supported (1, 2 or 3)"));
  }
  if (header_len > bytes.size() - header_start) {
    return Bad(name, "truncated .npy header");
  }
  Header header;
  std::string error;
  if (!HeaderParser(bytes.substr(header_start, header_len))
           .Parse(&header, &error)) {
    return Bad(name, absl::StrCat("bad .npy header: ", error));
  }
  Descr descr;
  if (!ParseDescr(header.descr, &descr)) {
    return Bad(name, absl::StrCat("unsupported dtype '", header.descr, "'"));
  }
  std::optional<PrimitiveType> type;
  if (descr.kind == 'V') {
    if (!expected.has_value()) {
      return Bad(name,
                 absl::StrCat("dtype '", header.descr,
                              "' is raw data (an ml_dtypes array such as "
                              "bfloat16 or float8): its element type must "
                              "come from the module's parameter"));
    }
    if (StorageBytes(*expected) != descr.size) {
      return Bad(name, absl::StrCat("dtype '", header.descr, "' has ",
                                    descr.size, "-byte elements, but ",
                                    PrimitiveTypeName(*expected), " needs ",
                                    StorageBytes(*expected)));
    }
    type = expected;
  } else {
    type = TypeOfDescr(descr);
    if (!type.has_value()) {
      return Bad(name, absl::StrCat("unsupported dtype '", header.descr, "'"));
    }
    // An ml_dtypes 1-byte float other than e5m2 also reports '<f1'.
    if (descr.kind == 'f' && descr.size == 1 && expected.has_value() &&
        StorageBytes(*expected) == 1 && IsFloatingPoint(*expected)) {
      type = expected;
    }
    if (expected.has_value() && *expected != *type) {
      return Bad(name, absl::StrCat("holds ", PrimitiveTypeName(*type),
                                    " data ('", header.descr, "'), expected ",
                                    PrimitiveTypeName(*expected)));
    }
  }
  const int64_t count = CheckedProduct(header.shape);
  const size_t data_start = header_start + header_len;
  const size_t available = bytes.size() - data_start;
  if (count < 0 || static_cast<uint64_t>(count) >
                       available / static_cast<uint64_t>(descr.size)) {
    return Bad(name,
               absl::StrCat("holds ", available,
                            " bytes of data, but "
                            "shape ",
                            ShapeTuple(Shape(*type, header.shape)), " of '",
                            header.descr, "' needs ",
                            count < 0 ? std::string("more")
                                      : absl::StrCat(count * descr.size)));
  }
  if (static_cast<uint64_t>(count) * descr.size != available) {
    return Bad(name, absl::StrCat(available - count * descr.size,
                                  " bytes after the array data"));
  }
  Literal literal(Shape::WithDefaultLayout(*type, header.shape));
  absl::string_view data = bytes.substr(data_start);
  const int size = descr.size;
  const int rank = static_cast<int>(header.shape.size());
  // Row-major strides of the logical array, to read Fortran order.
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t source = i;
    if (header.fortran_order && rank > 1) {
      source = 0;
      for (int d = rank - 1; d >= 0; --d)
        source = source * header.shape[d] + index[d];
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < header.shape[d]) break;
        index[d] = 0;
      }
    }
    const char* element = data.data() + source * size;
    if (IsSubByte(*type) || *type == PrimitiveType::kPred) {
      const uint8_t byte = static_cast<uint8_t>(element[0]);
      literal.SetBits(i, *type == PrimitiveType::kPred ? (byte != 0) : byte);
      continue;
    }
    uint8_t* out = literal.mutable_data().data() + i * size;
    std::memcpy(out, element, size);
    if (descr.order == '>') {
      // Complex numbers swap each component.
      const int part = descr.kind == 'c' ? size / 2 : size;
      for (int p = 0; p < size; p += part)
        std::reverse(out + p, out + p + part);
    }
  }
  return literal;
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "only arrays can be written as .npy, not ", shape.ToString(false)));
  }
  if (literal.is_unknown()) {
    return absl::InvalidArgumentError("the literal's value is unknown");
  }
  const PrimitiveType type = shape.element_type();
  std::string dict = absl::StrCat(
      "{'descr': '", DescrOfType(type),
      "', 'fortran_order': False, 'shape': ", ShapeTuple(shape), ", }");
  // NumPy pads so that the data starts at a multiple of 64 bytes.
  const size_t unpadded = kMagicLen + 2 + 2 + dict.size() + 1;
  const size_t pad = 64 - unpadded % 64;
  dict.append(pad, ' ');
  dict.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back('\x01');
  out.push_back('\x00');
  Put16(&out, static_cast<uint16_t>(dict.size()));
  out += dict;
  if (IsSubByte(type)) {
    // ml_dtypes keeps the value's bits in the low bits of each byte.
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      out.push_back(static_cast<char>(literal.GetBits(i)));
    }
  } else {
    out.append(reinterpret_cast<const char*>(literal.data().data()),
               literal.data().size());
  }
  return out;
}

// -------------------------------------------------------------------- npz

absl::StatusOr<NamedLiterals> ParseNpz(
    absl::string_view bytes, const std::string& name,
    const std::vector<PrimitiveType>& expected) {
  // End of central directory: the last "PK\5\6" within 64 KiB of the end.
  constexpr size_t kEocd = 22;
  if (bytes.size() < kEocd) return Bad(name, "not a .npz (zip) file");
  size_t eocd = std::string::npos;
  const size_t lowest =
      bytes.size() > kEocd + 65535 ? bytes.size() - kEocd - 65535 : 0;
  for (size_t at = bytes.size() - kEocd + 1; at-- > lowest;) {
    if (Le32(bytes, at) == 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd == std::string::npos) {
    return Bad(name, "not a .npz (zip) file: no end of central directory");
  }
  uint64_t entries = Le16(bytes, eocd + 10);
  uint64_t directory_size = Le32(bytes, eocd + 12);
  uint64_t directory = Le32(bytes, eocd + 16);
  if (eocd >= 20 && Le32(bytes, eocd - 20) == 0x07064b50) {
    // Zip64: the locator points at the zip64 end record.
    const uint64_t record = Le64(bytes, eocd - 20 + 8);
    if (bytes.size() < 56 || record > bytes.size() - 56 ||
        Le32(bytes, record) != 0x06064b50) {
      return Bad(name, "corrupt zip64 end of central directory");
    }
    entries = Le64(bytes, record + 32);
    directory_size = Le64(bytes, record + 40);
    directory = Le64(bytes, record + 48);
  }
  if (directory > bytes.size() || directory_size > bytes.size() - directory) {
    return Bad(name, "corrupt .npz: the central directory is outside the file");
  }
  NamedLiterals out;
  size_t at = directory;
  for (uint64_t e = 0; e < entries; ++e) {
    if (at > bytes.size() || bytes.size() - at < 46 ||
        Le32(bytes, at) != 0x02014b50) {
      return Bad(name, "corrupt .npz: bad central directory entry");
    }
    const uint16_t method = Le16(bytes, at + 10);
    const uint32_t crc = Le32(bytes, at + 16);
    uint64_t compressed = Le32(bytes, at + 20);
    uint64_t size = Le32(bytes, at + 24);
    const uint16_t name_len = Le16(bytes, at + 28);
    const uint16_t extra_len = Le16(bytes, at + 30);
    const uint16_t comment_len = Le16(bytes, at + 32);
    uint64_t local = Le32(bytes, at + 42);
    if (at + 46 + name_len + extra_len + comment_len > bytes.size()) {
      return Bad(name, "corrupt .npz: truncated central directory");
    }
    std::string member(bytes.substr(at + 46, name_len));
    // Zip64 extra field: the 64-bit values of the fields saturated above.
    absl::string_view extra = bytes.substr(at + 46 + name_len, extra_len);
    for (size_t x = 0; x + 4 <= extra.size();) {
      const uint16_t id = Le16(extra, x);
      const uint16_t len = Le16(extra, x + 2);
      if (x + 4 + len > extra.size()) break;
      if (id == 0x0001) {
        size_t f = x + 4;
        auto take = [&](uint64_t* v) {
          if (*v == 0xffffffffu && f + 8 <= x + 4 + len) {
            *v = Le64(extra, f);
            f += 8;
          }
        };
        take(&size);
        take(&compressed);
        take(&local);
      }
      x += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    const std::string where = absl::StrCat(name, ":", member);
    if (local > bytes.size() || bytes.size() - local < 30 ||
        Le32(bytes, local) != 0x04034b50) {
      return Bad(where, "corrupt .npz: bad local header");
    }
    const uint64_t data =
        local + 30 + Le16(bytes, local + 26) + Le16(bytes, local + 28);
    if (data > bytes.size() || compressed > bytes.size() - data) {
      return Bad(where, "corrupt .npz: member data is outside the file");
    }
    absl::string_view stored = bytes.substr(data, compressed);
    std::string inflated;
    if (method == 8) {
      // Deflate expands at most ~1032:1; a larger claim is a corrupt header.
      if (size > compressed * 1032 + 1024 || size > (uint64_t{1} << 34)) {
        return Bad(where, "corrupt .npz: member size does not match its data");
      }
      inflated.resize(size);
      z_stream z{};
      if (inflateInit2(&z, -15) != Z_OK) return Bad(where, "zlib failure");
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
      z.avail_in = static_cast<uInt>(stored.size());
      z.next_out = reinterpret_cast<Bytef*>(inflated.data());
      z.avail_out = static_cast<uInt>(inflated.size());
      const int rc = inflate(&z, Z_FINISH);
      const uint64_t produced = z.total_out;
      inflateEnd(&z);
      if (rc != Z_STREAM_END || produced != size) {
        return Bad(where, "corrupt .npz: member does not inflate");
      }
      stored = inflated;
    } else if (method != 0) {
      return Bad(where, absl::StrCat("zip compression method ", method,
                                     " is not supported (stored or deflate)"));
    } else if (compressed != size) {
      return Bad(where, "corrupt .npz: stored member sizes differ");
    }
    if (crc32(0, reinterpret_cast<const Bytef*>(stored.data()),
              static_cast<uInt>(stored.size())) != crc) {
      return Bad(where, "corrupt .npz: CRC mismatch");
    }
    std::optional<PrimitiveType> want;
    if (out.size() < expected.size()) want = expected[out.size()];
    absl::StatusOr<Literal> literal = ParseNpy(stored, where, want);
    if (!literal.ok()) return literal.status();
    absl::string_view key = member;
    absl::ConsumeSuffix(&key, ".npy");
    out.emplace_back(std::string(key), *std::move(literal));
  }
  return out;
}

absl::StatusOr<std::string> SerializeNpz(const NamedLiterals& arrays) {
  std::string out, directory;
  for (const auto& [key, literal] : arrays) {
    absl::StatusOr<std::string> npy = SerializeNpy(literal);
    if (!npy.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": ", npy.status().message()));
    }
    if (npy->size() >= 0xffffffffu || out.size() >= 0xffffffffu) {
      return absl::InvalidArgumentError("arrays too large for a plain .npz");
    }
    const std::string member = key + ".npy";
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(npy->data()),
                               static_cast<uInt>(npy->size()));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    // Local header: version 20, no flags, stored, 1980-01-01 00:00.
    Put32(&out, 0x04034b50);
    Put16(&out, 20);
    Put16(&out, 0);
    Put16(&out, 0);
    Put16(&out, 0);
    Put16(&out, 0x21);
    Put32(&out, crc);
    Put32(&out, static_cast<uint32_t>(npy->size()));
    Put32(&out, static_cast<uint32_t>(npy->size()));
    Put16(&out, static_cast<uint16_t>(member.size()));
    Put16(&out, 0);
    out += member;
    out += *npy;
    Put32(&directory, 0x02014b50);
    Put16(&directory, 20);
    Put16(&directory, 20);
    Put16(&directory, 0);
    Put16(&directory, 0);
    Put16(&directory, 0);
    Put16(&directory, 0x21);
    Put32(&directory, crc);
    Put32(&directory, static_cast<uint32_t>(npy->size()));
    Put32(&directory, static_cast<uint32_t>(npy->size()));
    Put16(&directory, static_cast<uint16_t>(member.size()));
    Put16(&directory, 0);
    Put16(&directory, 0);
    Put16(&directory, 0);
    Put16(&directory, 0);
    Put32(&directory, 0);
    Put32(&directory, offset);
    directory += member;
  }
  const uint32_t directory_offset = static_cast<uint32_t>(out.size());
  out += directory;
  Put32(&out, 0x06054b50);
  Put16(&out, 0);
  Put16(&out, 0);
  Put16(&out, static_cast<uint16_t>(arrays.size()));
  Put16(&out, static_cast<uint16_t>(arrays.size()));
  Put32(&out, static_cast<uint32_t>(directory.size()));
  Put32(&out, directory_offset);
  Put16(&out, 0);
  return out;
}

}  // namespace xlite
