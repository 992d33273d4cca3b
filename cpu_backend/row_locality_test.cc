// Row locality of a kernel's reads (row_locality.h): which dimension of
// each operand a result row reads, through the fused operations that keep
// rows apart, and -1 where a row reads others.

#include "cpu_backend/row_locality.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hlo/ir/module.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

std::vector<int64_t> RowsOfRoot(const std::string& text, int64_t row_dim) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  return OperandRowDimensions((*m)->entry_computation()->root_instruction(),
                              row_dim);
}

TEST(RowLocality, BroadcastReduceReshapeAndTransposeMapRows) {
  const std::string text = R"(HloModule m
ad { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] add(a, b) }
f {
  x = f32[8,16] parameter(0)
  v = f32[8] parameter(1)
  t = f32[16,8] parameter(2)
  k = f32[] parameter(3)
  col = f32[8,1] parameter(4)
  vb = f32[8,16] broadcast(v), dimensions={0}
  tt = f32[8,16] transpose(t), dimensions={1,0}
  kb = f32[8,16] broadcast(k), dimensions={}
  c = f32[8] reshape(col)
  cb = f32[8,16] broadcast(c), dimensions={0}
  a = f32[8,16] add(x, vb)
  b = f32[8,16] add(a, tt)
  d = f32[8,16] multiply(b, kb)
  e = f32[8,16] add(d, cb)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(e, z), dimensions={1}, to_apply=ad
}
ENTRY e {
  x = f32[8,16] parameter(0)
  v = f32[8] parameter(1)
  t = f32[16,8] parameter(2)
  k = f32[] parameter(3)
  col = f32[8,1] parameter(4)
  ROOT r = f32[8] fusion(x, v, t, k, col), kind=kInput, calls=f
})";
  EXPECT_EQ(RowsOfRoot(text, 0), (std::vector<int64_t>{0, 0, 1, -1, 0}));
}

TEST(RowLocality, ReadsAcrossRowsAreNotLocal) {
  // A broadcast along the rows, a slice of them, and one operand read at
  // two different dimensions.
  const std::string text = R"(HloModule m
f {
  x = f32[16] parameter(0)
  y = f32[20,16] parameter(1)
  s = f32[16,16] parameter(2)
  xb = f32[16,16] broadcast(x), dimensions={1}
  ys = f32[16,16] slice(y), slice={[2:18], [0:16]}
  st = f32[16,16] transpose(s), dimensions={1,0}
  a = f32[16,16] add(xb, ys)
  b = f32[16,16] add(a, s)
  ROOT c = f32[16,16] add(b, st)
}
ENTRY e {
  x = f32[16] parameter(0)
  y = f32[20,16] parameter(1)
  s = f32[16,16] parameter(2)
  ROOT r = f32[16,16] fusion(x, y, s), kind=kLoop, calls=f
})";
  EXPECT_EQ(RowsOfRoot(text, 0), (std::vector<int64_t>{-1, -1, -1}));
}

TEST(RowLocality, SingleInstructionKernels) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[4,6] parameter(0)
  ROOT t = f32[6,4] transpose(x), dimensions={1,0}
})";
  EXPECT_EQ(RowsOfRoot(text, 0), (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace xlite::cpu
