// PJRT errors (absl statuses), events (always ready: xlite executes
// synchronously), the plugin's attributes and the element-type mapping.

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

namespace xlite::pjrt {

PJRT_Error* MakeError(absl::Status status) {
  if (status.ok()) return nullptr;
  auto* error = new PJRT_Error{std::move(status), ""};
  error->message = std::string(error->status.message());
  return error;
}

PJRT_Error* Unimplemented(absl::string_view what) {
  return MakeError(absl::UnimplementedError(what));
}

PJRT_Error* InvalidArgument(absl::string_view message) {
  return MakeError(absl::InvalidArgumentError(message));
}

PJRT_Error* CheckStructSize(absl::string_view name, size_t given,
                            size_t needed) {
  if (given >= needed) return nullptr;
  return InvalidArgument(absl::StrCat(name, ": struct_size ", given,
                                      " is smaller than the ", needed,
                                      " bytes xlite reads"));
}

PJRT_Error* FromXlite(XliteError* error) {
  if (error == nullptr) return nullptr;
  const int code = xlite_error_code(error);
  absl::Status status(static_cast<absl::StatusCode>(code),
                      xlite_error_message(error));
  xlite_error_destroy(error);
  return MakeError(std::move(status));
}

namespace {

// PJRT_Buffer_Type (the enum's order) -> XLA PrimitiveType.
constexpr int kXliteTypeOfPjrt[] = {
    0,   // INVALID
    1,   // PRED
    2,   // S8
    3,   // S16
    4,   // S32
    5,   // S64
    6,   // U8
    7,   // U16
    8,   // U32
    9,   // U64
    10,  // F16
    11,  // F32
    12,  // F64
    16,  // BF16
    15,  // C64
    18,  // C128
    19,  // F8E5M2
    20,  // F8E4M3FN
    23,  // F8E4M3B11FNUZ
    24,  // F8E5M2FNUZ
    25,  // F8E4M3FNUZ
    21,  // S4
    22,  // U4
    17,  // TOKEN
    26,  // S2
    27,  // U2
    28,  // F8E4M3
    29,  // F8E3M4
    33,  // F8E8M0FNU
    32,  // F4E2M1FN
};
constexpr int kPjrtTypes =
    static_cast<int>(sizeof(kXliteTypeOfPjrt) / sizeof(kXliteTypeOfPjrt[0]));

}  // namespace

int ToXliteType(PJRT_Buffer_Type type) {
  const int t = static_cast<int>(type);
  return t > 0 && t < kPjrtTypes ? kXliteTypeOfPjrt[t] : 0;
}

PJRT_Buffer_Type ToPjrtType(int xlite_type) {
  for (int t = 1; t < kPjrtTypes; ++t) {
    if (kXliteTypeOfPjrt[t] == xlite_type) {
      return static_cast<PJRT_Buffer_Type>(t);
    }
  }
  return PJRT_Buffer_Type_INVALID;
}

void Error_Destroy(PJRT_Error_Destroy_Args* args) { delete args->error; }

void Error_Message(PJRT_Error_Message_Args* args) {
  args->message = args->error->message.data();
  args->message_size = args->error->message.size();
}

PJRT_Error* Error_GetCode(PJRT_Error_GetCode_Args* args) {
  args->code = static_cast<PJRT_Error_Code>(args->error->status.code());
  return nullptr;
}

PJRT_Error* Plugin_Initialize(PJRT_Plugin_Initialize_Args*) { return nullptr; }

PJRT_Error* Plugin_Attributes(PJRT_Plugin_Attributes_Args* args) {
  // Rebuilt on each call: the host may register its StableHLO version after
  // loading the library. Kept alive until the next call.
  static absl::Mutex mu;
  static std::vector<int64_t>* current = new std::vector<int64_t>();
  static std::vector<PJRT_NamedValue>* attributes =
      new std::vector<PJRT_NamedValue>();
  static const int64_t kMinimum[] = {0, 9, 0};
  absl::MutexLock lock(&mu);
  *current = StableHloVersion();
  attributes->clear();
  auto add_list = [&](const char* name, const int64_t* v, size_t n) {
    PJRT_NamedValue value;
    std::memset(&value, 0, sizeof(value));
    value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    value.name = name;
    value.name_size = std::strlen(name);
    value.type = PJRT_NamedValue_kInt64List;
    value.int64_array_value = v;
    value.value_size = n;
    attributes->push_back(value);
  };
  add_list("stablehlo_current_version", current->data(), current->size());
  add_list("stablehlo_minimum_version", kMinimum, 3);
  args->attributes = attributes->data();
  args->num_attributes = attributes->size();
  return nullptr;
}

PJRT_Error* Event_Destroy(PJRT_Event_Destroy_Args* args) {
  delete args->event;
  return nullptr;
}

PJRT_Error* Event_IsReady(PJRT_Event_IsReady_Args* args) {
  absl::MutexLock lock(&args->event->mu);
  args->is_ready = args->event->ready;
  return nullptr;
}

PJRT_Error* Event_Error(PJRT_Event_Error_Args* args) {
  absl::MutexLock lock(&args->event->mu);
  return MakeError(args->event->status);
}

PJRT_Error* Event_Await(PJRT_Event_Await_Args* args) {
  PJRT_Event* e = args->event;
  absl::MutexLock lock(&e->mu);
  e->mu.Await(absl::Condition(&e->ready));
  return MakeError(e->status);
}

PJRT_Error* Event_OnReady(PJRT_Event_OnReady_Args* args) {
  PJRT_Event* e = args->event;
  {
    absl::MutexLock lock(&e->mu);
    if (!e->ready) {
      e->waiting.emplace_back(args->callback, args->user_arg);
      return nullptr;
    }
  }
  args->callback(MakeError(e->status), args->user_arg);
  return nullptr;
}

PJRT_Error* Event_Create(PJRT_Event_Create_Args* args) {
  args->event = new PJRT_Event();
  args->event->ready = false;
  return nullptr;
}

PJRT_Error* Event_Set(PJRT_Event_Set_Args* args) {
  PJRT_Event* e = args->event;
  std::vector<std::pair<PJRT_Event_OnReadyCallback, void*>> waiting;
  absl::Status status;
  {
    absl::MutexLock lock(&e->mu);
    if (e->ready) return InvalidArgument("PJRT_Event_Set: already set");
    if (args->error_code != PJRT_Error_Code_OK) {
      e->status = absl::Status(
          static_cast<absl::StatusCode>(args->error_code),
          absl::string_view(args->error_message, args->error_message_size));
    }
    e->ready = true;
    status = e->status;
    waiting.swap(e->waiting);
  }
  for (auto& [callback, user_arg] : waiting) {
    callback(MakeError(status), user_arg);
  }
  return nullptr;
}

}  // namespace xlite::pjrt
