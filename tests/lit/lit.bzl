"""hlo_lit_tests: one sh_test per .hlo file with "// RUN:" lines."""

def hlo_lit_tests(name, srcs, data = []):
    """Creates a test per source file and a test_suite `name` over them.

    Args:
      name: name of the test_suite grouping the tests.
      srcs: .hlo files whose "// RUN:" lines are the test.
      data: other files the RUN lines read (paths relative to the workspace).
    """
    tests = []
    for src in srcs:
        test_name = src.replace("/", "_").replace(".hlo", "") + "_lit"
        native.sh_test(
            name = test_name,
            size = "small",
            srcs = ["//tests/lit:run_lit.sh"],
            args = [
                "$(location %s)" % src,
                "$(location //tools:hlo-opt)",
                "$(location @llvm//:filecheck)",
                "$(location @llvm//:not)",
                "$(location //tools:hlo-run)",
            ],
            data = [
                src,
                "//tools:hlo-opt",
                "//tools:hlo-run",
                "@llvm//:filecheck",
                "@llvm//:not",
            ] + data,
        )
        tests.append(test_name)
    native.test_suite(name = name, tests = tests)
