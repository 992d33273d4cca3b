// The fields of XLA's CompileOptionsProto that xlite reads (field numbers
// as in xla/pjrt/proto/compile_options.proto: executable_build_options = 3
// holding num_replicas = 4, num_partitions = 5, use_spmd_partitioning = 6,
// device_assignment = 9), and the DeviceAssignmentProto jax asks back for.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/pjrt/objects.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace xlite::pjrt {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::internal::WireFormatLite;

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed CompileOptionsProto: ", what));
}

absl::string_view ToView(const std::string& s) { return s; }

// Reads a length-delimited field's bytes.
bool ReadBytes(CodedInputStream& in, std::string& out) {
  return WireFormatLite::ReadBytes(&in, &out);
}

// DeviceAssignmentProto: replica_count = 1, computation_count = 2,
// computation_devices = 3 { replica_device_ids = 1 (int64, repeated) }.
absl::Status ParseDeviceAssignment(absl::string_view bytes,
                                   CompileOptions& out) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  int64_t replicas = 0, computations = 0;
  std::vector<std::vector<int64_t>> per_computation;
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    uint64_t v = 0;
    if (field == 1 && in.ReadVarint64(&v)) {
      replicas = static_cast<int64_t>(v);
    } else if (field == 2 && in.ReadVarint64(&v)) {
      computations = static_cast<int64_t>(v);
    } else if (field == 3) {
      std::string sub;
      if (!ReadBytes(in, sub)) return Malformed("device assignment");
      CodedInputStream d(reinterpret_cast<const uint8_t*>(sub.data()),
                         static_cast<int>(sub.size()));
      std::vector<int64_t> ids;
      while (uint32_t t = d.ReadTag()) {
        if (WireFormatLite::GetTagFieldNumber(t) != 1) {
          if (!WireFormatLite::SkipField(&d, t)) return Malformed("ids");
        } else if (WireFormatLite::GetTagWireType(t) ==
                   WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
          std::string packed;
          if (!ReadBytes(d, packed)) return Malformed("packed ids");
          CodedInputStream p(reinterpret_cast<const uint8_t*>(packed.data()),
                             static_cast<int>(packed.size()));
          while (p.ReadVarint64(&v)) ids.push_back(static_cast<int64_t>(v));
        } else if (d.ReadVarint64(&v)) {
          ids.push_back(static_cast<int64_t>(v));
        } else {
          return Malformed("id");
        }
      }
      per_computation.push_back(std::move(ids));
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return Malformed("device assignment field");
    }
  }
  if (static_cast<int64_t>(per_computation.size()) != computations) {
    return Malformed("device assignment computation count");
  }
  out.device_assignment.assign(replicas * computations, -1);
  for (int64_t c = 0; c < computations; ++c) {
    if (static_cast<int64_t>(per_computation[c].size()) != replicas) {
      return Malformed("device assignment replica count");
    }
    for (int64_t r = 0; r < replicas; ++r) {
      out.device_assignment[r * computations + c] = per_computation[c][r];
    }
  }
  return absl::OkStatus();
}

absl::Status ParseBuildOptions(absl::string_view bytes, CompileOptions& out) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const bool varint = WireFormatLite::GetTagWireType(tag) ==
                        WireFormatLite::WIRETYPE_VARINT;
    uint64_t v = 0;
    if (varint && (field == 4 || field == 5 || field == 6)) {
      if (!in.ReadVarint64(&v)) return Malformed("build option");
      if (field == 4) out.num_replicas = static_cast<int64_t>(v);
      if (field == 5) out.num_partitions = static_cast<int64_t>(v);
      if (field == 6) out.use_spmd_partitioning = v != 0;
    } else if (field == 9 && !varint) {
      std::string sub;
      if (!ReadBytes(in, sub)) return Malformed("device assignment");
      if (absl::Status s = ParseDeviceAssignment(sub, out); !s.ok()) return s;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return Malformed("executable build options");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseCompileOptions(absl::string_view bytes, CompileOptions& out) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    uint64_t v = 0;
    if (field == 2 && WireFormatLite::GetTagWireType(tag) ==
                          WireFormatLite::WIRETYPE_VARINT) {
      if (!in.ReadVarint64(&v)) return Malformed("tupled arguments");
      out.parameter_is_tupled_arguments = v != 0;
    } else if (field == 3 && WireFormatLite::GetTagWireType(tag) ==
                                 WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      std::string sub;
      if (!ReadBytes(in, sub)) return Malformed("executable_build_options");
      if (absl::Status s = ParseBuildOptions(ToView(sub), out); !s.ok()) {
        return s;
      }
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return Malformed("field");
    }
  }
  if (out.num_replicas < 1) out.num_replicas = 1;
  if (out.num_partitions < 1) out.num_partitions = 1;
  return absl::OkStatus();
}

std::string SerializeDeviceAssignment(
    int replicas, int partitions, const std::vector<PJRT_Device*>& devices) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    CodedOutputStream out(&stream);
    WireFormatLite::WriteInt32(1, replicas, &out);
    WireFormatLite::WriteInt32(2, partitions, &out);
    for (int c = 0; c < partitions; ++c) {
      std::string ids;
      {
        google::protobuf::io::StringOutputStream s(&ids);
        CodedOutputStream o(&s);
        for (int r = 0; r < replicas; ++r) {
          WireFormatLite::WriteInt64(
              1, devices[r * partitions + c]->description.id, &o);
        }
      }
      WireFormatLite::WriteBytes(3, ids, &out);
    }
  }
  return bytes;
}

}  // namespace xlite::pjrt
