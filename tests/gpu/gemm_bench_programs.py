#!/usr/bin/env python3
"""Writes the GEMM benchmark programs of the tiled GEMM issue into
OUT_DIR/gemm_NAME/before.hlo (+ meta.json: operand shapes and dtypes, the
GEMM's FLOPs): LLM shapes in bf16 (4096^3; M=8192, N=1024, K=28672; decode
steps with M = 1, 4, 16), tf32 (f32 4096^3), fp8 (e4m3 4096^3, bf16 out),
and fused epilogues (bias + tanh-GELU, bias + ReLU + convert) that cuBLASLt
runs as a call plus a kernel. build_device_bundle.sh compiles each with
--gemm-backend=tiled and =cublaslt; gemm_bench.py times them on the GPU
beside XLA:GPU. Inputs are made on the device (they are too big to ship).

  python3 gemm_bench_programs.py OUT_DIR
"""
import json
import os
import sys

# name: (operand type, result type, M, N, K, epilogue)
PROGRAMS = {
    "bf16_4096": ("bf16", "bf16", 4096, 4096, 4096, None),
    "bf16_8192x1024x28672": ("bf16", "bf16", 8192, 1024, 28672, None),
    "bf16_decode_m1": ("bf16", "bf16", 1, 8192, 8192, None),
    "bf16_decode_m4": ("bf16", "bf16", 4, 8192, 8192, None),
    "bf16_decode_m16": ("bf16", "bf16", 16, 8192, 8192, None),
    "tf32_4096": ("f32", "f32", 4096, 4096, 4096, None),
    "fp8_4096": ("f8e4m3fn", "bf16", 4096, 4096, 4096, None),
    "bf16_4096_bias_gelu": ("bf16", "bf16", 4096, 4096, 4096, "bias_gelu"),
    "bf16_4096_bias_relu_f32": ("bf16", "f32", 4096, 4096, 4096, "bias_relu"),
}


def module(name, t, r, m, n, k, epilogue):
    lines = [f"HloModule gemm_{name}", "", "ENTRY e {",
             f"  a = {t}[{m},{k}]{{1,0}} parameter(0)",
             f"  b = {t}[{k},{n}]{{1,0}} parameter(1)"]
    params = [(t, [m, k]), (t, [k, n])]
    if epilogue is None:
        lines.append(f"  ROOT d = {r}[{m},{n}]{{1,0}} dot(a, b), "
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    else:
        lines.append(f"  bias = bf16[{n}]{{0}} parameter(2)")
        params.append(("bf16", [n]))
        lines += [f"  d = bf16[{m},{n}]{{1,0}} dot(a, b), "
                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                  f"  bb = bf16[{m},{n}]{{1,0}} broadcast(bias), dimensions={{1}}",
                  f"  x = bf16[{m},{n}]{{1,0}} add(d, bb)"]
        if epilogue == "bias_gelu":
            lines += [f"  x2 = bf16[{m},{n}]{{1,0}} multiply(x, x)",
                      f"  x3 = bf16[{m},{n}]{{1,0}} multiply(x2, x)",
                      "  c = bf16[] constant(0.044715)",
                      f"  cb = bf16[{m},{n}]{{1,0}} broadcast(c), dimensions={{}}",
                      f"  y = bf16[{m},{n}]{{1,0}} multiply(x3, cb)",
                      f"  z = bf16[{m},{n}]{{1,0}} add(x, y)",
                      "  s = bf16[] constant(0.7978846)",
                      f"  sb = bf16[{m},{n}]{{1,0}} broadcast(s), dimensions={{}}",
                      f"  zs = bf16[{m},{n}]{{1,0}} multiply(z, sb)",
                      f"  th = bf16[{m},{n}]{{1,0}} tanh(zs)",
                      "  one = bf16[] constant(1)",
                      f"  ob = bf16[{m},{n}]{{1,0}} broadcast(one), dimensions={{}}",
                      f"  t1 = bf16[{m},{n}]{{1,0}} add(th, ob)",
                      "  h = bf16[] constant(0.5)",
                      f"  hb = bf16[{m},{n}]{{1,0}} broadcast(h), dimensions={{}}",
                      f"  xh = bf16[{m},{n}]{{1,0}} multiply(x, hb)",
                      f"  ROOT out = bf16[{m},{n}]{{1,0}} multiply(xh, t1)"]
        else:
            lines += ["  zero = bf16[] constant(0)",
                      f"  zb = bf16[{m},{n}]{{1,0}} broadcast(zero), dimensions={{}}",
                      f"  relu = bf16[{m},{n}]{{1,0}} maximum(x, zb)",
                      f"  ROOT out = {r}[{m},{n}]{{1,0}} convert(relu)"]
    lines.append("}")
    return "\n".join(lines) + "\n", params


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "gemm_programs"
    for name, (t, r, m, n, k, epilogue) in PROGRAMS.items():
        d = os.path.join(out, f"gemm_{name}")
        os.makedirs(d, exist_ok=True)
        text, params = module(name, t, r, m, n, k, epilogue)
        with open(os.path.join(d, "before.hlo"), "w") as f:
            f.write(text)
        meta = {"params": [{"dtype": p[0], "shape": p[1]} for p in params],
                "flops": 2 * m * n * k, "m": m, "n": n, "k": k}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)


if __name__ == "__main__":
    main()
