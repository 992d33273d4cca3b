// GetPjrtApi: the table of the PJRT C API (api/pjrt/functions.h), every
// slot filled: the functions xlite implements, and for each other slot of
// the header's PJRT_Api (slots.inc, generated from the header) a function
// answering UNIMPLEMENTED with the slot's name.

#include <cstring>

#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace xlite::pjrt {
namespace {

PJRT_Api MakeApi() {
  PJRT_Api api;
  std::memset(&api, 0, sizeof(api));
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = nullptr;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
  api.PJRT_Error_Destroy = &Error_Destroy;
  api.PJRT_Error_Message = &Error_Message;
#define XLITE_PJRT_SET(name) api.PJRT_##name = &name;
  XLITE_PJRT_FUNCTIONS(XLITE_PJRT_SET)
#undef XLITE_PJRT_SET
#define XLITE_PJRT_SLOT(slot)                                         \
  if (api.slot == nullptr) {                                          \
    api.slot = +[](slot##_Args*) -> PJRT_Error* {                     \
      return Unimplemented(#slot " is not implemented by xlite");     \
    };                                                                \
  }
#include "api/pjrt/slots.inc"
#undef XLITE_PJRT_SLOT
  return api;
}

}  // namespace
}  // namespace xlite::pjrt

extern "C" __attribute__((visibility("default"))) const PJRT_Api*
GetPjrtApi() {
  static const PJRT_Api api = xlite::pjrt::MakeApi();
  return &api;
}
