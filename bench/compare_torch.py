#!/usr/bin/env python3
"""Runs vkdml's benchmark shapes in PyTorch on the same GPU and prints one
table: vkdml GB/s, PyTorch GB/s, copy GB/s, and the ratios.

    vkdml_bench --large --json vkdml.json
    python3 bench/compare_torch.py vkdml.json [--markdown] [--ort]

Bytes are vkdml's count for the case (read + written), so both columns use
the same numerator. PyTorch is timed with CUDA events: median of 10 runs after
3 warm-ups, like vkdml_bench.

Convolutions get a second table: vkdml's TOPS per path next to
torch._int_mm (cuBLASLt) on the same GEMM shape (M = N*OH*OW, N = OC,
K = C*KH*KW; B column-major, its fast layout; no im2col, so it is the GEMM
alone) and ONNX Runtime's CPU ConvInteger on the whole convolution, where the
onnx package is there to build its model. Operations are 2*M*N*K throughout.
"""
import json
import re
import sys

import torch


def median_ms(fn, warmup=3, reps=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def dims(text):
    return [int(d) for d in text.split("x")]


def torch_case(result):
    """The PyTorch work equivalent to one vkdml case, or None."""
    case, shape, dev = result["case"], result["shape"], "cuda"
    f32 = torch.float32
    if case.startswith("cat axis") or case.startswith("latency: cat of 3"):
        sizes = dims(shape.split(" x ")[1])
        axis = 3 if case.startswith("latency") else int(case.split()[-1])
        parts = [torch.rand(sizes, device=dev, dtype=f32) for _ in range(3)]
        return lambda: torch.cat(parts, dim=axis)
    if case.startswith("slice [:, :, 1:]"):
        x = torch.rand(dims(shape), device=dev, dtype=f32)
        return lambda: x[:, :, 1:].contiguous()
    if case.startswith("strided slice"):
        x = torch.rand(dims(shape), device=dev, dtype=f32)
        return lambda: x[:, :, ::2, 1::2].contiguous()
    if case.startswith("flip dim 2") or case.startswith("latency: flip"):
        x = torch.rand(dims(shape), device=dev, dtype=f32)
        return lambda: torch.flip(x, [2])
    if case.startswith("clone + scatter of rows"):
        m = re.match(r"(\d+) rows of (\d+) into (\d+)", shape)
        updated, width, rows = (int(g) for g in m.groups())
        x = torch.rand(rows, width, device=dev, dtype=f32)
        index = torch.randperm(rows, device=dev)[:updated]
        updates = torch.rand(updated, width, device=dev, dtype=f32)
        return lambda: x.clone().index_put_((index,), updates)
    if case.startswith("triu"):
        m = torch.rand(dims(shape), device=dev, dtype=f32)
        return lambda: torch.triu(m, 1)
    if case.startswith("eye"):
        batch, n, _ = dims(shape)
        out = torch.empty(batch, n, n, device=dev, dtype=f32)
        eye = torch.eye(n, device=dev, dtype=f32)
        return lambda: out.copy_(eye.expand(batch, n, n))  # writes the same bytes as the stack of identities
    return None


def int_mm_tops(gemm):
    """torch._int_mm on M x K times K x N (B column-major). It needs K and N
    multiples of 8: they are padded up (more work, counted as the original)."""
    m, n, k = dims(gemm)
    kp, np_ = (k + 7) // 8 * 8, (n + 7) // 8 * 8
    a = torch.randint(-128, 128, (m, kp), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (np_, kp), dtype=torch.int8, device="cuda").t()  # column-major K x N
    ms = median_ms(lambda: torch._int_mm(a, b))
    return 2 * m * n * k / ms / 1e9


def ort_conv_tops(result):
    """ONNX Runtime's CPU ConvInteger (uint8 input, int8 filter, zero points), or None."""
    try:
        import numpy as np
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    x_shape, w_shape = (dims(s) for s in result["shape"].split(" * "))
    stride, pad = (int(v) for v in re.match(r"stride (\d+) pad (\d+)", result["convolution"]).groups())
    node = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], strides=[stride] * 2, pads=[pad] * 4)
    graph = helper.make_graph(
        [node], "conv",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, x_shape),
         helper.make_tensor_value_info("w", TensorProto.INT8, w_shape),
         helper.make_tensor_value_info("xz", TensorProto.UINT8, []),
         helper.make_tensor_value_info("wz", TensorProto.INT8, [])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # what ONNX Runtime 1.30 reads (the onnx package may write a newer one)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {"x": np.random.randint(0, 256, x_shape, dtype=np.uint8),
             "w": np.random.randint(-128, 128, w_shape, dtype=np.int8),
             "xz": np.array(128, dtype=np.uint8), "wz": np.array(0, dtype=np.int8)}
    import time
    session.run(None, feeds)  # warm-up
    times = []
    for _ in range(2):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    m, n, k = dims(result["gemm"])
    return 2 * m * n * k / min(times) / 1e12


def print_table(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + " --- |" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


def convolution_table(vk, markdown):
    convs = [r for r in vk["results"] if r["operator"] == "conv"]
    peak = next((r["tops"] for r in vk["results"] if r["operator"] == "coopmat"), None)
    if not convs:
        return
    print()
    print(f"int8 cooperative-matrix peak (same vkdml run): {peak:.0f} TOPS" if peak else "no cooperative-matrix peak")
    # "output fill us": vkCmdFillBuffer over the convolution's output in the
    # same vkdml run, the time writing the output alone takes.
    header = ["case", "GEMM MxNxK", "path", "vkdml us", "vkdml TOPS", "torch._int_mm TOPS", "vkdml/_int_mm",
              "vkdml/peak", "output fill us", "ORT CPU TOPS"]
    rows, done = [], {}
    for r in convs:
        if r["gemm"] not in done:
            done[r["gemm"]] = (int_mm_tops(r["gemm"]), ort_conv_tops(r) if "--ort" in sys.argv else None)
            torch.cuda.empty_cache()
        mm, ort_tops = done[r["gemm"]]
        rows.append([r["case"], r["gemm"], r.get("path", ""), f"{r['median_ns'] / 1e3:.1f}", f"{r['tops']:.1f}",
                     f"{mm:.0f}", f"{r['tops'] / mm:.2f}", f"{r['tops'] / peak:.2f}" if peak else "-",
                     f"{r['output_fill_ns'] / 1e3:.1f}" if "output_fill_ns" in r else "-",
                     f"{ort_tops:.3f}" if ort_tops else "-"])
    print_table(header, rows, markdown)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    vk = json.load(open(sys.argv[1]))
    markdown = "--markdown" in sys.argv
    copy_bytes = 1 << 30
    a = torch.empty(copy_bytes // 4, device="cuda", dtype=torch.float32)
    b = torch.empty_like(a)
    torch_copy = 2 * copy_bytes / median_ms(lambda: b.copy_(a)) / 1e6
    print(f"device: {vk['device']} / {torch.cuda.get_device_name()}; PyTorch {torch.__version__}; "
          f"torch device copy of 1 GiB: {torch_copy:.0f} GB/s")
    header = ["operator", "case", "shape", "MB", "vkdml us", "vkdml GB/s", "PyTorch us", "PyTorch GB/s",
              "copy GB/s", "vkdml/PyTorch", "vkdml/copy"]
    rows = []
    for r in vk["results"]:
        if not r.get("bytes"):
            continue
        work = torch_case(r)
        torch_ms = median_ms(work) if work else float("nan")
        torch_gbps = r["bytes"] / torch_ms / 1e6 if work else float("nan")
        rows.append([r["operator"], r["case"], r["shape"], f"{r['bytes'] / 1e6:.1f}", f"{r['median_ns'] / 1e3:.1f}",
                     f"{r['gbps']:.0f}", f"{torch_ms * 1e3:.1f}", f"{torch_gbps:.0f}", f"{r['copy_gbps']:.0f}",
                     f"{r['gbps'] / torch_gbps:.2f}", f"{r['ratio_to_copy']:.2f}"])
        del work
        torch.cuda.empty_cache()
    print_table(header, rows, markdown)
    convolution_table(vk, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
