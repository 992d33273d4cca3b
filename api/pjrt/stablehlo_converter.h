#ifndef XLITE_API_PJRT_STABLEHLO_CONVERTER_H_
#define XLITE_API_PJRT_STABLEHLO_CONVERTER_H_

/* jax hands PJRT_Client_Compile a StableHLO portable artifact; xlite
 * compiles HLO. The host process (jax_plugins.xlite) registers a function
 * that turns an artifact into a serialized HloModuleProto (jaxlib's own
 * converter, in-process) and the StableHLO version it reads. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Converts `size` bytes at `artifact`; reports through
 * xlite_pjrt_converter_result(result, ...) and returns 0, or returns
 * non-zero having reported an error message. */
typedef int (*XlitePjrtStableHloConverter)(const char* artifact, size_t size,
                                           void* result);

/* Registers the converter; `version` (major, minor, patch) is what the
 * plugin reports as stablehlo_current_version. Called before the client is
 * created. */
void xlite_pjrt_set_stablehlo_converter(XlitePjrtStableHloConverter converter,
                                        const int64_t* version,
                                        size_t version_size);

/* The converter's answer: the serialized HloModuleProto, or (is_error
 * non-zero) an error message. */
void xlite_pjrt_converter_result(void* result, const char* bytes, size_t size,
                                 int is_error);

#ifdef __cplusplus
}
#endif

#endif /* XLITE_API_PJRT_STABLEHLO_CONVERTER_H_ */
