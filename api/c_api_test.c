/* The C API from C: compile, buffers, execute and read back on the cpu
 * backend and the interpreter; the signature; tuple results; replicas
 * with an all-reduce; sub-byte integers' byte form; and errors as values
 * (bad text, bad platform, wrong arguments) with their codes and located
 * messages. */

#include <stdio.h>
#include <string.h>

#include "api/c_api.h"

static int failures = 0;

#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,      \
              __LINE__, #cond);                                   \
      ++failures;                                                 \
    }                                                             \
  } while (0)

/* Checks `e` is NULL; prints its message otherwise. */
static int Ok(XliteError* e) {
  if (e == NULL) return 1;
  fprintf(stderr, "unexpected error %d: %s\n", xlite_error_code(e),
          xlite_error_message(e));
  xlite_error_destroy(e);
  ++failures;
  return 0;
}

static const char kAddMul[] =
    "HloModule add_mul\n"
    "ENTRY e {\n"
    "  x = f32[2,3] parameter(0)\n"
    "  y = f32[2,3] parameter(1)\n"
    "  s = f32[2,3] add(x, y)\n"
    "  p = f32[2,3] multiply(x, y)\n"
    "  ROOT t = (f32[2,3], f32[2,3]) tuple(s, p)\n"
    "}\n";

static void AddMul(const char* platform) {
  XliteClient* client = NULL;
  if (!Ok(xlite_client_create(platform, &client))) return;
  CHECK(strcmp(xlite_client_platform(client), platform) == 0);
  XliteExecutable* exe = NULL;
  if (!Ok(xlite_compile_hlo_text(client, kAddMul, strlen(kAddMul), NULL,
                                 &exe))) {
    xlite_client_destroy(client);
    return;
  }
  CHECK(xlite_executable_num_arguments(exe) == 2);
  CHECK(xlite_executable_num_results(exe) == 2);
  CHECK(xlite_executable_num_devices(exe) == 1);
  CHECK(strcmp(xlite_executable_signature(exe),
               "(f32[2,3], f32[2,3]) -> (f32[2,3], f32[2,3])") == 0);
  const int64_t dims[2] = {2, 3};
  const float xs[6] = {1, 2, 3, 4, 5, 6};
  const float ys[6] = {10, 20, 30, 40, 50, 60};
  XliteBuffer* args[2] = {NULL, NULL};
  Ok(xlite_buffer_from_host(XLITE_F32, dims, 2, xs, sizeof xs, &args[0]));
  Ok(xlite_buffer_from_host(XLITE_F32, dims, 2, ys, sizeof ys, &args[1]));
  XliteBuffer* results[2] = {NULL, NULL};
  if (Ok(xlite_execute(exe, args, 2, results, 2))) {
    float sum[6], prod[6];
    CHECK(xlite_buffer_element_type(results[0]) == XLITE_F32);
    CHECK(xlite_buffer_rank(results[0]) == 2);
    CHECK(xlite_buffer_dims(results[0])[1] == 3);
    CHECK(xlite_buffer_size(results[1]) == sizeof prod);
    Ok(xlite_buffer_to_host(results[0], sum, sizeof sum));
    Ok(xlite_buffer_to_host(results[1], prod, sizeof prod));
    for (int i = 0; i < 6; ++i) {
      CHECK(sum[i] == xs[i] + ys[i]);
      CHECK(prod[i] == xs[i] * ys[i]);
    }
    /* Too little room to read back. */
    XliteError* e = xlite_buffer_to_host(results[0], sum, 4);
    CHECK(e != NULL && xlite_error_code(e) == XLITE_CODE_INVALID_ARGUMENT);
    xlite_error_destroy(e);
  }
  /* Wrong argument count and shape: errors, nothing written. */
  XliteBuffer* none[2] = {NULL, NULL};
  XliteError* e = xlite_execute(exe, args, 1, none, 2);
  CHECK(e != NULL && xlite_error_code(e) == XLITE_CODE_INVALID_ARGUMENT);
  CHECK(none[0] == NULL);
  xlite_error_destroy(e);
  const int64_t flat[1] = {6};
  XliteBuffer* wrong = NULL;
  Ok(xlite_buffer_from_host(XLITE_F32, flat, 1, xs, sizeof xs, &wrong));
  XliteBuffer* mixed[2] = {args[0], wrong};
  e = xlite_execute(exe, mixed, 2, none, 2);
  CHECK(e != NULL && strstr(xlite_error_message(e), "argument 1") != NULL);
  xlite_error_destroy(e);
  xlite_buffer_destroy(wrong);
  for (int i = 0; i < 2; ++i) {
    xlite_buffer_destroy(args[i]);
    xlite_buffer_destroy(results[i]);
  }
  xlite_executable_destroy(exe);
  xlite_client_destroy(client);
}

static const char kAllReduce[] =
    "HloModule ar, replica_count=2\n"
    "add { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
    " ROOT s = s32[] add(a, b) }\n"
    "ENTRY e {\n"
    "  x = s32[4] parameter(0)\n"
    "  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add\n"
    "}\n";

static void Replicas(const char* platform) {
  XliteClient* client = NULL;
  if (!Ok(xlite_client_create(platform, &client))) return;
  XliteExecutable* exe = NULL;
  if (Ok(xlite_compile_hlo_text(client, kAllReduce, strlen(kAllReduce), NULL,
                                &exe))) {
    CHECK(xlite_executable_num_devices(exe) == 2);
    const int64_t dims[1] = {4};
    const int32_t a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
    XliteBuffer* in0 = NULL;
    XliteBuffer* in1 = NULL;
    Ok(xlite_buffer_from_host(XLITE_S32, dims, 1, a, sizeof a, &in0));
    Ok(xlite_buffer_from_host(XLITE_S32, dims, 1, b, sizeof b, &in1));
    XliteBuffer* const row0[1] = {in0};
    XliteBuffer* const row1[1] = {in1};
    XliteBuffer* const* args[2] = {row0, row1};
    XliteBuffer* out0[1] = {NULL};
    XliteBuffer* out1[1] = {NULL};
    XliteBuffer** outs[2] = {out0, out1};
    XliteError* single = xlite_execute(exe, row0, 1, out0, 1);
    CHECK(single != NULL);
    xlite_error_destroy(single);
    if (Ok(xlite_execute_devices(exe, 2, args, 1, outs, 1))) {
      int32_t r0[4], r1[4];
      Ok(xlite_buffer_to_host(out0[0], r0, sizeof r0));
      Ok(xlite_buffer_to_host(out1[0], r1, sizeof r1));
      for (int i = 0; i < 4; ++i) {
        CHECK(r0[i] == a[i] + b[i]);
        CHECK(r1[i] == a[i] + b[i]);
      }
    }
    xlite_buffer_destroy(out0[0]);
    xlite_buffer_destroy(out1[0]);
    xlite_buffer_destroy(in0);
    xlite_buffer_destroy(in1);
  }
  xlite_executable_destroy(exe);
  xlite_client_destroy(client);
}

/* The CUDA device when there is one (AddMul on it); else a clean error
 * saying so. */
static void Gpu(void) {
  XliteClient* client = NULL;
  XliteError* e = xlite_client_create("gpu", &client);
  if (e == NULL) {
    xlite_client_destroy(client);
    AddMul("gpu");
    return;
  }
  CHECK(client == NULL);
  CHECK(strstr(xlite_error_message(e), "no CUDA device") != NULL);
  printf("gpu: %s\n", xlite_error_message(e));
  xlite_error_destroy(e);
}

static void Errors(void) {
  XliteClient* client = NULL;
  XliteError* e = xlite_client_create("tpu", &client);
  CHECK(e != NULL && xlite_error_code(e) == XLITE_CODE_INVALID_ARGUMENT);
  CHECK(client == NULL);
  xlite_error_destroy(e);
  if (!Ok(xlite_client_create("cpu", &client))) return;
  /* A parse error is located: line 3, column 22, the undefined operand. */
  static const char bad[] =
      "HloModule m\nENTRY e {\n  ROOT x = f32[] add(a, b)\n}\n";
  XliteExecutable* exe = NULL;
  e = xlite_compile_hlo_text(client, bad, strlen(bad), NULL, &exe);
  CHECK(e != NULL && exe == NULL);
  CHECK(e != NULL && strstr(xlite_error_message(e), ":3:22: error:") != NULL);
  if (e != NULL) printf("bad text: %s\n", xlite_error_message(e));
  xlite_error_destroy(e);
  /* Garbage as a proto. */
  e = xlite_compile_hlo_proto(client, "\xff\xff\x01", 3, NULL, &exe);
  CHECK(e != NULL && exe == NULL);
  xlite_error_destroy(e);
  /* Buffers: size mismatch, unknown type, negative dimension. */
  const int64_t dims[1] = {3};
  const int64_t negative[1] = {-1};
  const float xs[3] = {1, 2, 3};
  XliteBuffer* b = NULL;
  e = xlite_buffer_from_host(XLITE_F32, dims, 1, xs, 8, &b);
  CHECK(e != NULL && b == NULL);
  xlite_error_destroy(e);
  e = xlite_buffer_from_host(99, dims, 1, xs, 12, &b);
  CHECK(e != NULL && b == NULL);
  xlite_error_destroy(e);
  e = xlite_buffer_from_host(XLITE_F32, negative, 1, xs, 0, &b);
  CHECK(e != NULL && b == NULL);
  xlite_error_destroy(e);
  /* Null handles are errors, not crashes. */
  e = xlite_execute(NULL, NULL, 0, NULL, 0);
  CHECK(e != NULL);
  xlite_error_destroy(e);
  CHECK(xlite_error_code(NULL) == 0);
  xlite_client_destroy(client);
}

/* Sub-byte integers: only an element's low bits count on input (ml_dtypes
 * keeps the rest zero); read back, signed ones are sign-extended. */
static void SubByte(void) {
  const int64_t dims[1] = {3};
  const uint8_t s4[3] = {0x0e, 0xf8, 0x07}; /* -2, -8, 7 */
  const uint8_t u4[3] = {0xf3, 0x0f, 0x00}; /* 3, 15, 0 */
  uint8_t back[3];
  XliteBuffer* b = NULL;
  if (Ok(xlite_buffer_from_host(XLITE_S4, dims, 1, s4, 3, &b))) {
    Ok(xlite_buffer_to_host(b, back, 3));
    CHECK(back[0] == 0xfe && back[1] == 0xf8 && back[2] == 0x07);
  }
  xlite_buffer_destroy(b);
  b = NULL;
  if (Ok(xlite_buffer_from_host(XLITE_U4, dims, 1, u4, 3, &b))) {
    Ok(xlite_buffer_to_host(b, back, 3));
    CHECK(back[0] == 0x03 && back[1] == 0x0f && back[2] == 0x00);
  }
  xlite_buffer_destroy(b);
}

int main(void) {
  CHECK(xlite_api_version() == XLITE_API_VERSION);
  CHECK(xlite_element_size(XLITE_BF16) == 2);
  CHECK(xlite_element_size(13) == 0); /* tuple */
  AddMul("cpu");
  AddMul("interpreter");
  AddMul("gpu-emulator");
  Gpu();
  Replicas("cpu");
  Replicas("interpreter");
  Errors();
  SubByte();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
