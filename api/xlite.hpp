#ifndef XLITE_API_XLITE_HPP_
#define XLITE_API_XLITE_HPP_

// A C++ wrapper over the C API (c_api.h), header only: owning handles
// that free themselves, results that carry either a value or the error.
//
//   auto client = xlite::embed::Client::Create("cpu");
//   auto exe = client.value.CompileText(hlo_text);
//   auto x = xlite::embed::Buffer::FromHost(XLITE_F32, {2, 3}, data, 24);
//   auto out = exe.value.Execute({&x.value});
//   if (!out.ok()) std::cerr << out.error.message();

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/c_api.h"

namespace xlite::embed {

/// An error from the C API, or none (ok()).
class Error {
 public:
  Error() = default;
  explicit Error(XliteError* e) : e_(e, &xlite_error_destroy) {}
  bool ok() const { return e_ == nullptr; }
  int code() const { return xlite_error_code(e_.get()); }
  std::string message() const { return xlite_error_message(e_.get()); }

 private:
  std::shared_ptr<XliteError> e_;
};

/// A value, or the error that kept it from being made.
template <typename T>
struct Result {
  T value;
  Error error;
  bool ok() const { return error.ok(); }
};

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(XliteBuffer* b) : b_(b, &xlite_buffer_destroy) {}

  /// A copy of `size` bytes at `data`: a row-major array of `type`.
  static Result<Buffer> FromHost(int type, const std::vector<int64_t>& dims,
                                 const void* data, size_t size) {
    XliteBuffer* b = nullptr;
    Error e(
        xlite_buffer_from_host(type, dims.data(), dims.size(), data, size, &b));
    return {e.ok() ? Buffer(b) : Buffer(), e};
  }
  template <typename T>
  static Result<Buffer> FromVector(int type, const std::vector<int64_t>& dims,
                                   const std::vector<T>& values) {
    return FromHost(type, dims, values.data(), values.size() * sizeof(T));
  }

  int type() const { return xlite_buffer_element_type(b_.get()); }
  std::vector<int64_t> dims() const {
    const int64_t* d = xlite_buffer_dims(b_.get());
    return std::vector<int64_t>(d, d + xlite_buffer_rank(b_.get()));
  }
  size_t size() const { return xlite_buffer_size(b_.get()); }
  Error ToHost(void* data, size_t size) const {
    return Error(xlite_buffer_to_host(b_.get(), data, size));
  }
  /// The elements as T (whose size must be the element size).
  template <typename T>
  Result<std::vector<T>> ToVector() const {
    std::vector<T> out(size() / sizeof(T));
    Error e = ToHost(out.data(), out.size() * sizeof(T));
    return {std::move(out), e};
  }
  XliteBuffer* get() const { return b_.get(); }

 private:
  std::shared_ptr<XliteBuffer> b_;
};

class Executable {
 public:
  Executable() = default;
  explicit Executable(XliteExecutable* x) : x_(x, &xlite_executable_destroy) {}

  size_t num_arguments() const {
    return xlite_executable_num_arguments(x_.get());
  }
  size_t num_results() const { return xlite_executable_num_results(x_.get()); }
  size_t num_devices() const { return xlite_executable_num_devices(x_.get()); }
  /// "(parameter shapes) -> result shape" in HLO syntax, without layouts.
  std::string signature() const { return xlite_executable_signature(x_.get()); }

  /// Runs on one device: one buffer per argument array.
  Result<std::vector<Buffer>> Execute(
      const std::vector<const Buffer*>& arguments) const {
    std::vector<XliteBuffer*> args;
    for (const Buffer* a : arguments) {
      args.push_back(a == nullptr ? nullptr : a->get());
    }
    std::vector<XliteBuffer*> out(num_results(), nullptr);
    Error e(xlite_execute(x_.get(), args.data(), args.size(), out.data(),
                          out.size()));
    return {Wrap(out, e), e};
  }

  /// Runs on every device: arguments[d] for device d.
  Result<std::vector<std::vector<Buffer>>> ExecuteDevices(
      const std::vector<std::vector<const Buffer*>>& arguments) const {
    std::vector<std::vector<XliteBuffer*>> args(arguments.size());
    std::vector<XliteBuffer* const*> arg_rows;
    std::vector<std::vector<XliteBuffer*>> out(
        arguments.size(), std::vector<XliteBuffer*>(num_results(), nullptr));
    std::vector<XliteBuffer**> out_rows;
    size_t count = arguments.empty() ? 0 : arguments[0].size();
    for (size_t d = 0; d < arguments.size(); ++d) {
      for (const Buffer* a : arguments[d]) {
        args[d].push_back(a == nullptr ? nullptr : a->get());
      }
      if (args[d].size() != count) count = static_cast<size_t>(-1);
      arg_rows.push_back(args[d].data());
      out_rows.push_back(out[d].data());
    }
    Error e(xlite_execute_devices(x_.get(), arguments.size(), arg_rows.data(),
                                  count, out_rows.data(), num_results()));
    std::vector<std::vector<Buffer>> results;
    for (const auto& row : out) results.push_back(Wrap(row, e));
    return {std::move(results), e};
  }

 private:
  static std::vector<Buffer> Wrap(const std::vector<XliteBuffer*>& raw,
                                  const Error& e) {
    std::vector<Buffer> out;
    if (!e.ok()) return out;
    for (XliteBuffer* b : raw) out.emplace_back(b);
    return out;
  }

  std::shared_ptr<XliteExecutable> x_;
};

class Client {
 public:
  Client() = default;
  explicit Client(XliteClient* c) : c_(c, &xlite_client_destroy) {}

  /// "cpu", "interpreter" or "gpu-emulator".
  static Result<Client> Create(const std::string& platform) {
    XliteClient* c = nullptr;
    Error e(xlite_client_create(platform.c_str(), &c));
    return {e.ok() ? Client(c) : Client(), e};
  }

  std::string platform() const { return xlite_client_platform(c_.get()); }

  Result<Executable> CompileText(
      const std::string& text,
      const XliteCompileOptions* options = nullptr) const {
    XliteExecutable* x = nullptr;
    Error e(xlite_compile_hlo_text(c_.get(), text.data(), text.size(), options,
                                   &x));
    return {e.ok() ? Executable(x) : Executable(), e};
  }
  Result<Executable> CompileProto(
      const std::string& bytes,
      const XliteCompileOptions* options = nullptr) const {
    XliteExecutable* x = nullptr;
    Error e(xlite_compile_hlo_proto(c_.get(), bytes.data(), bytes.size(),
                                    options, &x));
    return {e.ok() ? Executable(x) : Executable(), e};
  }

 private:
  std::shared_ptr<XliteClient> c_;
};

}  // namespace xlite::embed

#endif  // XLITE_API_XLITE_HPP_
