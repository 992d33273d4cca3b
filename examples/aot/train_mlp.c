/* Training a small classifier from C with an ahead-of-time library: the
 * training step examples/mlp_train_step.hlo (forward, softmax
 * cross-entropy, backward, an SGD update) compiled by hlo-compile into a
 * shared library that needs neither xlite nor LLVM.
 *
 *   bazel build //tools:hlo-compile
 *   mkdir -p /tmp/aot
 *   bazel-bin/tools/hlo-compile examples/mlp_train_step.hlo \
 *       --entry=train_step -o /tmp/aot/libtrain_step.so
 *   cc -O2 examples/aot/train_mlp.c -I/tmp/aot -L/tmp/aot -ltrain_step \
 *       -Wl,-rpath,/tmp/aot -o /tmp/aot/train_mlp
 *   /tmp/aot/train_mlp
 *
 * (or -o /tmp/aot/train_step.o, and link train_step.o with -lstdc++ -lm
 * -lpthread instead of -ltrain_step). The generated libtrain_step.h
 * declares train_step() and what it takes and returns:
 *   params:  x f32[8,16], w f32[16,4], b f32[4], labels s32[8]
 *   results: new w f32[16,4], new b f32[4], loss f32[]
 */
#include <stdio.h>
#include <string.h>

#include "libtrain_step.h"

/* A deterministic pseudo-random number in [-0.5, 0.5). */
static float noise(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 16777216.0f - 0.5f;
}

int main(void) {
  float x[8][16], w[16][4], b[4], new_w[16][4], new_b[4], loss;
  int32_t labels[8];
  unsigned seed = 1;
  int step, i, j;
  /* Eight samples whose class (0-3) shows in features 4c..4c+3. */
  for (i = 0; i < 8; ++i) {
    labels[i] = i % 4;
    for (j = 0; j < 16; ++j) {
      x[i][j] = (j / 4 == labels[i] ? 1.0f : 0.0f) + 0.3f * noise(&seed);
    }
  }
  memset(w, 0, sizeof(w));
  memset(b, 0, sizeof(b));
  {
    const void* params[TRAIN_STEP_NUM_PARAMS] = {x, w, b, labels};
    void* results[TRAIN_STEP_NUM_RESULTS] = {new_w, new_b, &loss};
    for (step = 0; step < 50; ++step) {
      const int status = train_step(params, results);
      if (status != 0) {
        fprintf(stderr, "train_step failed with status %d\n", status);
        return 1;
      }
      if (step % 10 == 0 || step == 49) {
        printf("step %2d: loss %.4f\n", step, loss);
      }
      memcpy(w, new_w, sizeof(w));
      memcpy(b, new_b, sizeof(b));
    }
  }
  /* The trained classifier's predictions: argmax of x w + b. */
  printf("predicted:");
  for (i = 0; i < 8; ++i) {
    int best = 0;
    float best_score = -1e30f;
    int c;
    for (c = 0; c < 4; ++c) {
      float score = b[c];
      for (j = 0; j < 16; ++j) score += x[i][j] * w[j][c];
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    printf(" %d", best);
  }
  printf("\nlabels:   ");
  for (i = 0; i < 8; ++i) printf(" %d", (int)labels[i]);
  printf("\n");
  return 0;
}
