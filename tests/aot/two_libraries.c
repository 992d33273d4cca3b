/* Two ahead-of-time libraries in one program (compiled with --entry=first
 * and --entry=second): each keeps its runtime to itself, so they link side
 * by side (two .o files, or two .so files) and both run.
 *
 *   two_libraries FIRST_IN_0.bin ... SECOND_IN_0.bin ... OUT_DIR
 *     -> OUT_DIR/first/out_J.bin and OUT_DIR/second/out_J.bin
 */
#include <stdio.h>
#include <stdlib.h>

#include "first.h"
#include "second.h"

static void* read_file(const char* path, int64_t bytes) {
  void* data = malloc(bytes > 0 ? (size_t)bytes : 1);
  FILE* f = fopen(path, "rb");
  if (f == NULL || (int64_t)fread(data, 1, (size_t)bytes, f) != bytes) {
    fprintf(stderr, "two_libraries: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return data;
}

static void write_results(const char* dir, const char* name, void** results,
                          const int64_t* bytes, int count) {
  char path[4096];
  int i;
  for (i = 0; i < count; ++i) {
    FILE* f;
    snprintf(path, sizeof(path), "%s/%s/out_%d.bin", dir, name, i);
    f = fopen(path, "wb");
    if (f == NULL ||
        fwrite(results[i], 1, (size_t)bytes[i], f) != (size_t)bytes[i]) {
      fprintf(stderr, "two_libraries: cannot write %s\n", path);
      exit(1);
    }
    fclose(f);
  }
}

int main(int argc, char** argv) {
  const void* first_params[FIRST_NUM_PARAMS + 1];
  const void* second_params[SECOND_NUM_PARAMS + 1];
  void* first_results[FIRST_NUM_RESULTS + 1];
  void* second_results[SECOND_NUM_RESULTS + 1];
  int i, arg = 1;
  if (argc != FIRST_NUM_PARAMS + SECOND_NUM_PARAMS + 2) return 2;
  for (i = 0; i < FIRST_NUM_PARAMS; ++i) {
    first_params[i] = read_file(argv[arg++], first_param_bytes[i]);
  }
  for (i = 0; i < SECOND_NUM_PARAMS; ++i) {
    second_params[i] = read_file(argv[arg++], second_param_bytes[i]);
  }
  for (i = 0; i < FIRST_NUM_RESULTS; ++i) {
    first_results[i] = malloc(first_result_bytes[i] + 1);
  }
  for (i = 0; i < SECOND_NUM_RESULTS; ++i) {
    second_results[i] = malloc(second_result_bytes[i] + 1);
  }
  if (first(first_params, first_results) != 0 ||
      second(second_params, second_results) != 0) {
    fprintf(stderr, "two_libraries: a library failed\n");
    return 1;
  }
  write_results(argv[arg], "first", first_results, first_result_bytes,
                FIRST_NUM_RESULTS);
  write_results(argv[arg], "second", second_results, second_result_bytes,
                SECOND_NUM_RESULTS);
  printf("two_libraries: both ran\n");
  return 0;
}
