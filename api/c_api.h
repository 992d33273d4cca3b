#ifndef XLITE_API_C_API_H_
#define XLITE_API_C_API_H_

/* xlite's embedding surface for C and C++ hosts: a client per platform,
 * modules compiled from HLO text or a serialized HloModuleProto, buffers in
 * host memory, execution on one device or several (replicas x partitions),
 * results read back. Every call that can fail returns an XliteError* (NULL
 * on success) carrying a status code and a message; nothing aborts the
 * host process on bad input.
 *
 * Stability: the functions below keep their signatures within an API
 * version (XLITE_API_VERSION); structs passed in carry their size first so
 * that fields can be added at the end. Objects are opaque and freed by
 * their *_destroy function (which accepts NULL).
 *
 * Data: a buffer holds a dense array in logical row-major order (the last
 * dimension fastest), each element in the HLO literal representation:
 * little-endian, pred one byte 0/1, f16/bf16/f8 types as their bits,
 * sub-byte types one per byte (signed integers sign-extended in it; on
 * input only an element's low bits count, so ml_dtypes' int4 arrays, which
 * keep the high bits zero, read correctly), complex as (real, imaginary)
 * pairs.
 * Element types are XLA's PrimitiveType numbers. A module's tuple-shaped
 * parameters and result are passed as their array leaves, depth first. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XLITE_API_VERSION 1

/* The API version this library implements. */
int xlite_api_version(void);

/* ---------------------------------------------------------------- errors */

typedef struct XliteError XliteError;

/* absl/gRPC status codes. */
typedef enum {
  XLITE_CODE_CANCELLED = 1,
  XLITE_CODE_UNKNOWN = 2,
  XLITE_CODE_INVALID_ARGUMENT = 3,
  XLITE_CODE_NOT_FOUND = 5,
  XLITE_CODE_RESOURCE_EXHAUSTED = 8,
  XLITE_CODE_FAILED_PRECONDITION = 9,
  XLITE_CODE_OUT_OF_RANGE = 11,
  XLITE_CODE_UNIMPLEMENTED = 12,
  XLITE_CODE_INTERNAL = 13,
  XLITE_CODE_UNAVAILABLE = 14
} XliteErrorCode;

int xlite_error_code(const XliteError* error);
/* Valid until the error is destroyed. */
const char* xlite_error_message(const XliteError* error);
void xlite_error_destroy(XliteError* error);

/* --------------------------------------------------------- element types */

typedef enum {
  XLITE_PRED = 1,
  XLITE_S8 = 2,
  XLITE_S16 = 3,
  XLITE_S32 = 4,
  XLITE_S64 = 5,
  XLITE_U8 = 6,
  XLITE_U16 = 7,
  XLITE_U32 = 8,
  XLITE_U64 = 9,
  XLITE_F16 = 10,
  XLITE_F32 = 11,
  XLITE_F64 = 12,
  XLITE_C64 = 15,
  XLITE_BF16 = 16,
  XLITE_C128 = 18,
  XLITE_F8E5M2 = 19,
  XLITE_F8E4M3FN = 20,
  XLITE_S4 = 21,
  XLITE_U4 = 22
} XliteElementType;

/* Bytes per element in a buffer (0 for a type xlite does not know). */
size_t xlite_element_size(int element_type);

/* --------------------------------------------------------------- clients */

typedef struct XliteClient XliteClient;

/* platform: "cpu" (native code), "interpreter" (the reference evaluator),
 * "gpu-emulator" (the GPU pipeline's kernels run on the host) or "gpu"
 * (device 0 of the local CUDA driver, compiled for its compute capability
 * and cuDNN; an error saying "no CUDA device" where there is none). */
XliteError* xlite_client_create(const char* platform, XliteClient** client);
void xlite_client_destroy(XliteClient* client);
/* Valid while the client lives. */
const char* xlite_client_platform(const XliteClient* client);

/* ----------------------------------------------------------- executables */

typedef struct XliteExecutable XliteExecutable;

typedef struct {
  size_t struct_size; /* sizeof(XliteCompileOptions) */
  /* Run the platform's pass pipeline first (non-zero, the default). */
  int run_passes;
  /* cpu: use the compiled-module cache (non-zero, the default). */
  int use_cache;
  /* Devices: replicas and partitions (0, the default: the module's own). */
  int replica_count;
  int num_partitions;
} XliteCompileOptions;

/* Sets `options` (whose first struct_size bytes the host has: pass
 * sizeof(XliteCompileOptions)) to the defaults, struct_size included.
 * Fields added to the struct in later versions are left alone in a host's
 * older, shorter struct. */
void xlite_compile_options_init(XliteCompileOptions* options,
                                size_t struct_size);

/* Parses (errors say "LINE:COL: error: ..."), verifies and compiles a
 * module in XLA's HLO text format; options may be NULL. */
XliteError* xlite_compile_hlo_text(XliteClient* client, const char* text,
                                   size_t size,
                                   const XliteCompileOptions* options,
                                   XliteExecutable** executable);
/* The same from a serialized HloModuleProto (or HloProto, HloSnapshot). */
XliteError* xlite_compile_hlo_proto(XliteClient* client, const void* bytes,
                                    size_t size,
                                    const XliteCompileOptions* options,
                                    XliteExecutable** executable);
void xlite_executable_destroy(XliteExecutable* executable);

/* Array leaves of the entry's parameters and of its result, depth first. */
size_t xlite_executable_num_arguments(const XliteExecutable* executable);
size_t xlite_executable_num_results(const XliteExecutable* executable);
/* Devices one execution runs on: replica_count x num_partitions. */
size_t xlite_executable_num_devices(const XliteExecutable* executable);
/* The entry computation's signature in HLO shape syntax, without layouts:
 * its parameters' shapes, then its result's, e.g.
 * "(f32[2,3], (s32[], u8[4])) -> (f32[2,3], pred[])". Bindings read the
 * tuple structure and leaf types from it. Valid while the executable
 * lives. */
const char* xlite_executable_signature(const XliteExecutable* executable);

/* Argument and result arrays: element type (0 when `index` is out of
 * range), rank and dimensions (valid while the executable lives). */
int xlite_executable_argument_type(const XliteExecutable* executable,
                                   size_t index);
size_t xlite_executable_argument_rank(const XliteExecutable* executable,
                                      size_t index);
const int64_t* xlite_executable_argument_dims(
    const XliteExecutable* executable, size_t index);
int xlite_executable_result_type(const XliteExecutable* executable,
                                 size_t index);
size_t xlite_executable_result_rank(const XliteExecutable* executable,
                                    size_t index);
const int64_t* xlite_executable_result_dims(const XliteExecutable* executable,
                                            size_t index);
/* The module's name (valid while the executable lives). */
const char* xlite_executable_name(const XliteExecutable* executable);

/* --------------------------------------------------------------- buffers */

typedef struct XliteBuffer XliteBuffer;

/* A buffer holding a copy of `size` bytes at `data` (which must be exactly
 * the array's bytes; NULL with size 0 for an empty array). */
XliteError* xlite_buffer_from_host(int element_type, const int64_t* dims,
                                   size_t rank, const void* data, size_t size,
                                   XliteBuffer** buffer);
void xlite_buffer_destroy(XliteBuffer* buffer);
int xlite_buffer_element_type(const XliteBuffer* buffer);
size_t xlite_buffer_rank(const XliteBuffer* buffer);
/* Valid while the buffer lives. */
const int64_t* xlite_buffer_dims(const XliteBuffer* buffer);
size_t xlite_buffer_size(const XliteBuffer* buffer);
/* The buffer's bytes, read-only (valid while the buffer lives). */
const void* xlite_buffer_data(const XliteBuffer* buffer);
/* Copies the buffer's bytes to `data`, which holds `size` bytes (at least
 * xlite_buffer_size). */
XliteError* xlite_buffer_to_host(const XliteBuffer* buffer, void* data,
                                 size_t size);

/* ------------------------------------------------------------- execution */

/* Runs a single-device executable: `arguments` holds num_arguments
 * buffers (xlite_executable_num_arguments, in order, shapes as the entry
 * computation's); on success `results` (room for num_results) receives new
 * buffers the caller destroys. Arguments are not consumed. */
XliteError* xlite_execute(XliteExecutable* executable,
                          XliteBuffer* const* arguments, size_t num_arguments,
                          XliteBuffer** results, size_t num_results);

/* Runs on every device (replica-major: device d is replica d / partitions,
 * partition d % partitions), collectives between them: arguments[d] and
 * results[d] are device d's arrays as for xlite_execute. */
XliteError* xlite_execute_devices(XliteExecutable* executable,
                                  size_t num_devices,
                                  XliteBuffer* const* const* arguments,
                                  size_t num_arguments,
                                  XliteBuffer** const* results,
                                  size_t num_results);

#ifdef __cplusplus
}
#endif

#endif /* XLITE_API_C_API_H_ */
