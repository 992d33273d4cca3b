"""XliteError: every failure the C API reports, and the bindings' own."""

# absl/gRPC status codes, as c_api.h's XliteErrorCode numbers them.
CODE_NAMES = {
    1: "CANCELLED",
    2: "UNKNOWN",
    3: "INVALID_ARGUMENT",
    5: "NOT_FOUND",
    8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION",
    11: "OUT_OF_RANGE",
    12: "UNIMPLEMENTED",
    13: "INTERNAL",
    14: "UNAVAILABLE",
}
INVALID_ARGUMENT = 3
UNIMPLEMENTED = 12
INTERNAL = 13


class XliteError(Exception):
    """A failed xlite call: `code` (a status code number, `code_name` its
    name) and `message` (for bad HLO text, located: "<input>:3:22: error:
    ...")."""

    def __init__(self, code, message):
        self.code = int(code)
        self.message = message
        super().__init__(f"{self.code_name}: {message}")

    @property
    def code_name(self):
        return CODE_NAMES.get(self.code, f"CODE_{self.code}")
