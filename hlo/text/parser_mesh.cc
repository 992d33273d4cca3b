// XLA's mesh form of replica groups:
//
//   mesh['a'=2,'b'=4] {'b'}            groups along axis b
//   mesh['a'=8] {'a':(2)2}             along a sub-axis of a (pre-size 2,
//                                      size 2)
//   mesh['a'=2,'b'=2], device_ids=(3,1,2,0) {'a'}
//
// The devices (iota, or the listed ids) are laid out as an array with the
// mesh's axis sizes; a sub-axis `x:(pre)size` splits axis x into
// [pre, size, rest]. The grouped axes move to the end, in the order written,
// and consecutive runs of (product of their sizes) devices form the groups.
// Without device ids that is an iota list [groups,size]<=[dims]T(perm).

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

struct AxisRef {
  int64_t axis = 0;
  bool sub = false;
  int64_t pre_size = 1;
  int64_t size = 1;
};

// How one mesh axis is split: the sizes it reshapes into, and for each
// reference to it (in the order written) the piece that is grouped.
struct AxisSplit {
  std::vector<int64_t> dims;
  std::vector<int64_t> grouped;
};

// Splits axis `axis_size` for the references `refs` to it (all sub-axes when
// there are several). Returns false if they overlap or do not tile it.
bool SplitAxis(int64_t axis_size, const std::vector<AxisRef>& refs,
               AxisSplit* split) {
  if (refs.size() == 1 && !refs[0].sub) {
    split->dims = {axis_size};
    split->grouped = {0};
    return true;
  }
  std::vector<size_t> order(refs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return refs[a].pre_size < refs[b].pre_size;
  });
  split->grouped.assign(refs.size(), 0);
  int64_t covered = 1;
  for (size_t k : order) {
    const AxisRef& ref = refs[k];
    if (!ref.sub || ref.pre_size % covered != 0) return false;
    if (ref.pre_size != covered) {
      split->dims.push_back(ref.pre_size / covered);
      covered = ref.pre_size;
    }
    split->grouped[k] = static_cast<int64_t>(split->dims.size());
    split->dims.push_back(ref.size);
    covered *= ref.size;
  }
  if (axis_size % covered != 0) return false;
  // XLA keeps the trailing piece even when it is 1 for a single sub-axis.
  if (covered != axis_size || refs.size() == 1) {
    split->dims.push_back(axis_size / covered);
  }
  return true;
}

// An axis name: 'quoted' (as current XLA prints it) or a bare identifier.
bool ReadAxisName(TextScanner& s, std::string* name) {
  const size_t p = s.Position();
  if (s.Consume('\'')) {
    *name = s.ReadWhile([](char c) { return c != '\'' && c != '\n'; });
    if (!s.Expect('\'', "to close a mesh axis name")) return false;
  } else {
    *name = s.ReadIdentifier();
  }
  if (name->empty()) return s.ErrorAt(p, "expected a mesh axis name");
  return true;
}

// A mesh as written: its axes, the optional device ids and the references
// to the grouped axes.
struct Mesh {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  int64_t devices = 0;
  std::vector<int64_t> device_ids;
  std::vector<AxisRef> refs;
};

// After `mesh[`: the `'name'=size` axes up to the closing ']'.
bool ReadMeshAxes(TextScanner& s, size_t start, Mesh* mesh) {
  do {
    std::string name;
    int64_t size;
    const size_t p = s.Position();
    if (!ReadAxisName(s, &name) || !s.Expect('=', "after a mesh axis name") ||
        !s.ReadInt64(&size, "as a mesh axis size")) {
      return false;
    }
    if (size < 1) return s.ErrorAt(p, "mesh axis sizes must be >= 1");
    if (std::find(mesh->names.begin(), mesh->names.end(), name) !=
        mesh->names.end()) {
      return s.ErrorAt(p, absl::StrCat("mesh axis '", name, "' appears twice"));
    }
    mesh->names.push_back(std::move(name));
    mesh->sizes.push_back(size);
  } while (s.Consume(','));
  if (!s.Expect(']', "to close the mesh axes")) return false;
  mesh->devices = CheckedProduct(mesh->sizes);
  if (mesh->devices < 0) {
    return s.ErrorAt(start, "the mesh has too many devices");
  }
  return true;
}

// An optional `, device_ids=(...)`, a permutation of the mesh's devices.
bool ReadMeshDeviceIds(TextScanner& s, Mesh* mesh) {
  const size_t after_axes = s.RawPosition();
  if (s.Consume(',') && s.PeekIdentifier() != "device_ids") s.Reset(after_axes);
  if (s.PeekIdentifier() != "device_ids") return true;
  s.ReadIdentifier();
  const size_t p = s.Position();
  if (!s.Expect('=', "after device_ids") ||
      !s.Expect('(', "to start the mesh device ids")) {
    return false;
  }
  do {
    int64_t id;
    if (!s.ReadInt64(&id, "in the mesh device ids")) return false;
    mesh->device_ids.push_back(id);
  } while (s.Consume(','));
  if (!s.Expect(')', "to close the mesh device ids")) return false;
  std::vector<int64_t> sorted = mesh->device_ids;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i) ||
        static_cast<int64_t>(sorted.size()) != mesh->devices) {
      return s.ErrorAt(p, absl::StrCat("mesh device ids must be a "
                                       "permutation of 0..",
                                       mesh->devices - 1));
    }
  }
  return true;
}

// After a grouped axis' name: an optional `:(pre)size` sub-axis of it.
bool ReadSubAxis(TextScanner& s, size_t p, const std::string& name,
                 int64_t axis_size, AxisRef* ref) {
  if (!s.Consume(':')) return true;
  ref->sub = true;
  if (!s.Expect('(', "before a sub-axis pre-size") ||
      !s.ReadInt64(&ref->pre_size, "as a sub-axis pre-size") ||
      !s.Expect(')', "after a sub-axis pre-size") ||
      !s.ReadInt64(&ref->size, "as a sub-axis size")) {
    return false;
  }
  if (ref->pre_size < 1 || ref->size < 2 || ref->size >= axis_size ||
      axis_size % (ref->pre_size * ref->size) != 0) {
    return s.ErrorAt(p, absl::StrCat("sub-axis (", ref->pre_size, ")",
                                     ref->size, " does not divide axis '", name,
                                     "' of size ", axis_size));
  }
  return true;
}

// The grouped axes: `{'a', 'b':(2)2, ...}` (possibly empty).
bool ReadGroupedAxes(TextScanner& s, Mesh* mesh) {
  if (!s.Expect('{', "to start the grouped mesh axes")) return false;
  if (s.Consume('}')) return true;
  do {
    std::string name;
    const size_t p = s.Position();
    if (!ReadAxisName(s, &name)) return false;
    auto it = std::find(mesh->names.begin(), mesh->names.end(), name);
    if (it == mesh->names.end()) {
      return s.ErrorAt(p, absl::StrCat("'", name, "' is not a mesh axis"));
    }
    AxisRef ref;
    ref.axis = it - mesh->names.begin();
    if (!ReadSubAxis(s, p, name, mesh->sizes[ref.axis], &ref)) return false;
    mesh->refs.push_back(ref);
  } while (s.Consume(','));
  return s.Expect('}', "to close the grouped mesh axes");
}

// Expands `mesh` into XLA's groups (see the file comment); errors are
// reported at `axes_pos`, the grouped axes.
bool ExpandMeshGroups(TextScanner& s, size_t axes_pos, const Mesh& mesh,
                      ReplicaGroups* groups) {
  const std::vector<int64_t>& sizes = mesh.sizes;
  // Split each referenced axis; lay the pieces out in mesh order.
  std::vector<int64_t> dims, offsets(sizes.size());
  std::vector<int64_t> grouped_dims;
  std::vector<AxisSplit> splits(sizes.size());
  for (size_t axis = 0; axis < sizes.size(); ++axis) {
    std::vector<AxisRef> on_axis;
    for (const AxisRef& ref : mesh.refs) {
      if (ref.axis == static_cast<int64_t>(axis)) on_axis.push_back(ref);
    }
    offsets[axis] = static_cast<int64_t>(dims.size());
    if (on_axis.empty()) {
      dims.push_back(sizes[axis]);
      continue;
    }
    if (!SplitAxis(sizes[axis], on_axis, &splits[axis])) {
      return s.ErrorAt(axes_pos, absl::StrCat("the grouped references to mesh "
                                              "axis '",
                                              mesh.names[axis], "' overlap"));
    }
    dims.insert(dims.end(), splits[axis].dims.begin(), splits[axis].dims.end());
  }
  std::vector<int64_t> seen_on_axis(sizes.size(), 0);
  int64_t group_size = 1;
  for (const AxisRef& ref : mesh.refs) {
    const AxisSplit& split = splits[ref.axis];
    grouped_dims.push_back(offsets[ref.axis] +
                           split.grouped[seen_on_axis[ref.axis]++]);
    group_size *= ref.sub ? ref.size : sizes[ref.axis];
  }
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::find(grouped_dims.begin(), grouped_dims.end(), d) ==
        grouped_dims.end()) {
      perm.push_back(d);
    }
  }
  perm.insert(perm.end(), grouped_dims.begin(), grouped_dims.end());
  *groups = ReplicaGroups();
  if (mesh.device_ids.empty()) {
    groups->iota = true;
    groups->num_groups = mesh.devices / group_size;
    groups->group_size = group_size;
    groups->reshape_dims = dims;
    groups->transpose_perm = perm;
  } else {
    const std::vector<int64_t> order = ExpandIota(dims, perm);
    for (size_t i = 0; i < order.size(); ++i) {
      if (i % group_size == 0) groups->groups.emplace_back();
      groups->groups.back().push_back(mesh.device_ids[order[i]]);
    }
  }
  return true;
}

// XLA's spelling: quoted names, no spaces but the one before the axes.
std::string MeshText(const Mesh& mesh) {
  std::string text = "mesh[";
  for (size_t i = 0; i < mesh.names.size(); ++i) {
    absl::StrAppend(&text, i > 0 ? "," : "", "'", mesh.names[i],
                    "'=", mesh.sizes[i]);
  }
  text += "]";
  if (!mesh.device_ids.empty()) {
    absl::StrAppend(&text, ", device_ids=(",
                    absl::StrJoin(mesh.device_ids, ","), ")");
  }
  text += " {";
  for (size_t i = 0; i < mesh.refs.size(); ++i) {
    const AxisRef& ref = mesh.refs[i];
    absl::StrAppend(&text, i > 0 ? "," : "", "'", mesh.names[ref.axis], "'");
    if (ref.sub) absl::StrAppend(&text, ":(", ref.pre_size, ")", ref.size);
  }
  return text + "}";
}

}  // namespace

bool Parser::ParseMeshReplicaGroups(ReplicaGroups* groups) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (s.ReadIdentifier() != "mesh" || !s.Expect('[', "after mesh")) {
    return s.ErrorAt(start, "expected mesh[...] replica groups");
  }
  Mesh mesh;
  if (!ReadMeshAxes(s, start, &mesh) || !ReadMeshDeviceIds(s, &mesh)) {
    return false;
  }
  const size_t axes_pos = s.Position();
  if (!ReadGroupedAxes(s, &mesh) ||
      !ExpandMeshGroups(s, axes_pos, mesh, groups)) {
    return false;
  }
  groups->mesh = MeshText(mesh);
  absl::Status valid = groups->Validate();
  if (!valid.ok()) return s.ErrorAt(start, valid.message());
  return true;
}

}  // namespace parser_internal
}  // namespace xlite
