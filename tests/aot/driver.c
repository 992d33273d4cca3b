/* A C program as a user of an ahead-of-time library writes it: it includes
 * the header hlo-compile wrote (AOT_HEADER, for a library compiled with
 * --entry=aot_fn), reads each parameter's raw bytes from a file, runs
 * aot_fn and writes each result's raw bytes to a file. It then runs
 * aot_fn_with_temp on its own arena and checks the results are the same
 * bytes.
 *
 *   driver IN_0.bin ... IN_{P-1}.bin OUT_DIR  -> OUT_DIR/out_J.bin
 *
 * With -DDONATE, result 0 is computed in the very buffer of the parameter
 * the header says it may share (AOT_FN_RESULT0_SHARES_PARAM).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include AOT_HEADER

static void* read_file(const char* path, int64_t bytes) {
  void* data = malloc(bytes > 0 ? (size_t)bytes : 1);
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "driver: cannot open %s\n", path);
    exit(1);
  }
  size_t got = fread(data, 1, (size_t)bytes, f);
  if ((int64_t)got != bytes || fgetc(f) != EOF) {
    fprintf(stderr, "driver: %s is not %lld bytes\n", path, (long long)bytes);
    exit(1);
  }
  fclose(f);
  return data;
}

static void write_file(const char* path, const void* data, int64_t bytes) {
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, (size_t)bytes, f) != (size_t)bytes) {
    fprintf(stderr, "driver: cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

int main(int argc, char** argv) {
  const void* params[AOT_FN_NUM_PARAMS + 1];
  void* results[AOT_FN_NUM_RESULTS + 1];
  void* again[AOT_FN_NUM_RESULTS + 1];
  char path[4096];
  int i, status;
  if (argc != AOT_FN_NUM_PARAMS + 2) {
    fprintf(stderr, "driver: expected %d parameter files and a folder\n",
            AOT_FN_NUM_PARAMS);
    return 2;
  }
  for (i = 0; i < AOT_FN_NUM_PARAMS; ++i) {
    params[i] = read_file(argv[i + 1], aot_fn_param_bytes[i]);
  }
  for (i = 0; i < AOT_FN_NUM_RESULTS; ++i) {
    results[i] = malloc(aot_fn_result_bytes[i] + 1);
    again[i] = malloc(aot_fn_result_bytes[i] + 1);
  }
#ifdef DONATE
#ifndef AOT_FN_RESULT0_SHARES_PARAM
#error "the header does not say result 0 may share a parameter's buffer"
#endif
  /* The parameter's buffer doubles as the result's: copy it first, the
   * parameter's bytes are needed again below. */
  memcpy(results[0], params[AOT_FN_RESULT0_SHARES_PARAM],
         aot_fn_param_bytes[AOT_FN_RESULT0_SHARES_PARAM]);
  {
    const void* saved = params[AOT_FN_RESULT0_SHARES_PARAM];
    params[AOT_FN_RESULT0_SHARES_PARAM] = results[0];
    status = aot_fn(params, results);
    params[AOT_FN_RESULT0_SHARES_PARAM] = saved;
  }
#else
  status = aot_fn(params, results);
#endif
  if (status != 0) {
    fprintf(stderr, "driver: aot_fn returned %d\n", status);
    return 1;
  }
  for (i = 0; i < AOT_FN_NUM_RESULTS; ++i) {
    snprintf(path, sizeof(path), "%s/out_%d.bin", argv[argc - 1], i);
    write_file(path, results[i], aot_fn_result_bytes[i]);
  }
  {
    /* The caller's arena, 64-byte aligned; the same results. */
    void* temp = NULL;
    if (AOT_FN_TEMP_BYTES > 0 &&
        posix_memalign(&temp, 64, AOT_FN_TEMP_BYTES) != 0) {
      return 1;
    }
    status = aot_fn_with_temp(params, again, temp);
    free(temp);
  }
  if (status != 0) {
    fprintf(stderr, "driver: aot_fn_with_temp returned %d\n", status);
    return 1;
  }
  for (i = 0; i < AOT_FN_NUM_RESULTS; ++i) {
    if (memcmp(results[i], again[i], aot_fn_result_bytes[i]) != 0) {
      fprintf(stderr,
              "driver: result %d differs between aot_fn and "
              "aot_fn_with_temp\n",
              i);
      return 1;
    }
  }
  if (aot_fn_with_temp(params, again, NULL) !=
      (AOT_FN_TEMP_BYTES > 0 ? -1 : 0)) {
    fprintf(stderr, "driver: aot_fn_with_temp without an arena\n");
    return 1;
  }
  printf("driver: %d parameters, %d results, %lld temporary bytes\n",
         AOT_FN_NUM_PARAMS, AOT_FN_NUM_RESULTS, (long long)AOT_FN_TEMP_BYTES);
  return 0;
}
