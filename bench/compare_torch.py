#!/usr/bin/env python3
"""Runs vkdml's benchmark shapes in PyTorch on the same GPU and prints one
table: vkdml GB/s, PyTorch GB/s, copy GB/s, and the ratios.

    vkdml_bench --large --json vkdml.json
    python3 bench/compare_torch.py vkdml.json [--markdown] [--ort] [--png FILE]
                                   [--history LABEL=FILE ... [--history-only]]

Bytes are vkdml's count for the case (read + written), so both columns use
the same numerator. PyTorch is timed with CUDA events: median of 10 runs after
3 warm-ups, like vkdml_bench, each enqueued behind a spin kernel so that the
events time the GPU's work alone, as vkdml_bench's timestamps do (not the
host's time to launch it).

Convolutions get a second table: vkdml's TOPS per path next to
torch._int_mm (cuBLASLt) on the same GEMM shape (M = N*OH*OW, N = OC,
K = C*KH*KW; B column-major, its fast layout; no im2col, so it is the GEMM
alone), PyTorch's cuDNN int8 convolution (cudnn_int8_conv_us) and ONNX
Runtime's CPU ConvInteger on the whole convolution, where the
onnx package is there to build its model. Operations are 2*M*N*K throughout.

A network's layers (vkdml_bench --filter resnet50) get a table per layer
(vkdml through the path it ran, torch._int_mm on the same GEMM, what a
PyTorch user runs for the convolution: unfold + torch._int_mm, and PyTorch's
cuDNN int8 convolution, quantized::conv2d) and the network's totals: the sum
of time x count over its layers on each side.

--png FILE writes a bar chart (matplotlib), one group per case: vkdml,
PyTorch and the limit (the copy for data movement, the cooperative-matrix
peak for convolutions); default: next to the JSON. Without matplotlib the
chart is left out with a message.

--history LABEL=FILE (repeatable) adds a table of the same convolutions
measured in other runs (e.g. in one process after --churn-gib): vkdml's time
in each, against this file's. --history-only prints that table alone.

Without PyTorch (or without a GPU for it) the PyTorch columns are left out.
"""
import json
import os
import re
import sys

try:
    import torch
except ImportError:
    torch = None


# GPU clock cycles of the spin that runs ahead of each timed call (about a
# millisecond): far longer than the host takes to enqueue the call.
QUEUE_AHEAD_CYCLES = 2_000_000


def median_ms(fn, warmup=3, reps=10):
    """GPU time of fn's work, like vkdml_bench's timestamps: each timed call
    is enqueued behind a spin kernel, so the GPU runs the start event, the
    call and the end event back to back and the host's launch time (tens of
    microseconds for torch._int_mm) stays out of the figure."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(QUEUE_AHEAD_CYCLES)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def dims(text):
    return [int(d) for d in text.split("x")]


def rand(sizes, device, dtype):
    """torch.rand, or random integers for an integer dtype (torch.rand has none)."""
    if dtype.is_floating_point:
        return torch.rand(sizes, device=device, dtype=dtype)
    return torch.randint(-2**31, 2**31, sizes, device=device, dtype=dtype)


def torch_case(result):
    """The PyTorch work equivalent to one vkdml case, or None."""
    case, shape, dev = result["case"], result["shape"], "cuda"
    # The data-movement cases are FLOAT32 or (8-byte elements) INT64.
    element = torch.float32 if result.get("dtype", "FLOAT32") == "FLOAT32" else torch.int64
    if case.startswith("cat axis") or case.startswith("latency: cat of 3"):
        sizes = dims(shape.split(" x ")[1])
        axis = 3 if case.startswith("latency") else int(re.match(r"cat axis (\d+)", case).group(1))
        parts = [rand(sizes, device=dev, dtype=element) for _ in range(3)]
        return lambda: torch.cat(parts, dim=axis)
    if case.startswith("slice [:, :, 1:]"):
        x = rand(dims(shape), device=dev, dtype=element)
        return lambda: x[:, :, 1:].contiguous()
    if case.startswith("strided slice"):
        x = rand(dims(shape), device=dev, dtype=element)
        return lambda: x[:, :, ::2, 1::2].contiguous()
    if case.startswith("flip dim 2") or case.startswith("latency: flip"):
        x = rand(dims(shape), device=dev, dtype=element)
        return lambda: torch.flip(x, [2])
    if case.startswith("clone + scatter of rows"):
        m = re.match(r"(\d+) rows of (\d+) into (\d+)", shape)
        updated, width, rows = (int(g) for g in m.groups())
        x = rand([rows, width], device=dev, dtype=element)
        index = torch.randperm(rows, device=dev)[:updated]
        updates = rand([updated, width], device=dev, dtype=element)
        return lambda: x.clone().index_put_((index,), updates)
    if case.startswith("triu"):
        k = int(re.match(r"triu\(m, (-?\d+)\)", case).group(1))
        m = rand(dims(shape), device=dev, dtype=element)
        return lambda: torch.triu(m, k)
    if case.startswith("eye"):
        batch, n, _ = dims(shape)
        out = torch.empty(batch, n, n, device=dev, dtype=element)
        eye = torch.eye(n, device=dev, dtype=element)
        return lambda: out.copy_(eye.expand(batch, n, n))  # writes the same bytes as the stack of identities
    return None


def int_mm_tops(gemm):
    """torch._int_mm on M x K times K x N (B column-major). It needs K and N
    multiples of 8: they are padded up (more work, counted as the original).
    Where K is no multiple of 16, also K padded to 16, and the faster of the
    two counts: cuBLASLt took the stem's 401408 x 64 x 152 in 195.7 us and
    x 160 in 76.1 (bench/results/triton_ceiling.md). None without PyTorch,
    or where _int_mm refuses the shape."""
    if not have_torch():
        return None
    m, n, k = dims(gemm)
    np_ = (n + 7) // 8 * 8
    try:
        times = []
        for kp in sorted({(k + 7) // 8 * 8, (k + 15) // 16 * 16}):
            a = torch.randint(-128, 128, (m, kp), dtype=torch.int8, device="cuda")
            b = torch.randint(-128, 128, (np_, kp), dtype=torch.int8, device="cuda").t()  # column-major K x N
            times.append(median_ms(lambda: torch._int_mm(a, b)))
            del a, b
        if len(times) > 1:
            print(f"torch._int_mm on {gemm}: K padded to 8 {1000 * times[0]:.1f} us, to 16 {1000 * times[1]:.1f} us",
                  file=sys.stderr)
        ms = min(times)
    except RuntimeError as e:
        print(f"torch._int_mm on {gemm}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    finally:
        torch.cuda.empty_cache()
    return 2 * m * n * k / ms / 1e9


def unfold_int_mm_us(result):
    """What a PyTorch user runs for an int8 convolution on the GPU: the
    input padded and unfolded into the im2col matrix (Tensor.unfold, as
    int8: torch.nn.functional.unfold takes floating types only), then
    torch._int_mm with the filter as K x N, K and N padded to multiples of 8;
    GPU time of the whole, microseconds. None without PyTorch or where it
    refuses."""
    if not have_torch() or "convolution" not in result:
        return None
    (n, c, h, w), (oc, _, kh, kw) = (dims(part) for part in result["shape"].split(" * "))
    stride, pad = (int(v) for v in re.match(r"stride (\d+) pad (\d+)", result["convolution"]).groups())
    k = c * kh * kw
    kp, ocp = (k + 7) // 8 * 8, (oc + 7) // 8 * 8
    try:
        x = torch.randint(-128, 128, (n, h, w, c), dtype=torch.int8, device="cuda")  # channels-last, as torch keeps it
        f = torch.randint(-128, 128, (ocp, kp), dtype=torch.int8, device="cuda").t()

        def run():
            padded = torch.nn.functional.pad(x, (0, 0, pad, pad, pad, pad))
            cols = padded.unfold(1, kh, stride).unfold(2, kw, stride)  # n, oh, ow, c, kh, kw
            a = cols.reshape(-1, k)
            if kp != k:
                a = torch.nn.functional.pad(a, (0, kp - k))
            return torch._int_mm(a.contiguous(), f)

        return median_ms(run) * 1e3
    except RuntimeError as e:
        print(f"unfold + torch._int_mm on {result['case']}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    finally:
        torch.cuda.empty_cache()


def cudnn_int8_conv_us(result):
    """PyTorch's own int8 convolution on CUDA: quantized::conv2d on
    QuantizedCUDA tensors, which runs cuDNN's int8 convolution. It takes a
    qint8 input channels-last and a prepacked qint8 filter, both with zero
    point 0, and requantizes its int32 sums to a qint8 output: a quarter of
    ConvolutionInteger's output bytes and no zero-point terms. Channels are
    padded to multiples of 4 (the stem's 3), more work counted as the
    original. GPU time, microseconds; None without PyTorch or where it
    refuses."""
    if not have_torch() or "convolution" not in result:
        return None
    (n, c, h, w), (oc, _, kh, kw) = (dims(part) for part in result["shape"].split(" * "))
    stride, pad = (int(v) for v in re.match(r"stride (\d+) pad (\d+)", result["convolution"]).groups())
    cp, ocp = (c + 3) // 4 * 4, (oc + 3) // 4 * 4
    try:
        x = torch.quantize_per_tensor(torch.randn(n, cp, h, w, device="cuda"), 0.05, 0, torch.qint8)
        x = x.contiguous(memory_format=torch.channels_last)
        f = torch.quantize_per_tensor(torch.randn(ocp, cp, kh, kw, device="cuda"), 0.01, 0, torch.qint8)
        packed = torch.ops.quantized.conv2d_prepack(f, None, [stride] * 2, [pad] * 2, [1, 1], 1)
        return median_ms(lambda: torch.ops.quantized.conv2d(x, packed, 0.5, 0)) * 1e3
    except (RuntimeError, NotImplementedError) as e:
        print(f"cuDNN int8 convolution on {result['case']}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    finally:
        torch.cuda.empty_cache()


_int_mm_cache = {}


def int_mm_tops_cached(gemm):
    if gemm not in _int_mm_cache:
        _int_mm_cache[gemm] = int_mm_tops(gemm)
    return _int_mm_cache[gemm]


def have_torch():
    return torch is not None and torch.cuda.is_available()


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


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
    convs = [r for r in vk["results"] if r["operator"] == "conv" and "network" not in r]
    peak = next((r["tops"] for r in vk["results"] if r["operator"] == "coopmat"), None)
    if not convs:
        return
    print()
    print(f"int8 cooperative-matrix peak (same vkdml run): {peak:.0f} TOPS" if peak else "no cooperative-matrix peak")
    # "output fill us": vkCmdFillBuffer over the convolution's output in the
    # same vkdml run, the time writing the output alone takes.
    header = ["case", "GEMM MxNxK", "path", "vkdml us", "vkdml TOPS", "torch._int_mm TOPS", "vkdml/_int_mm",
              "cuDNN int8 TOPS", "vkdml/peak", "output fill us", "ORT CPU TOPS"]
    rows, ort, cudnn = [], {}, {}
    for r in convs:
        mm = int_mm_tops_cached(r["gemm"])
        if r["case"] not in cudnn:
            cudnn_us = cudnn_int8_conv_us(r)
            m, n, k = dims(r["gemm"])
            cudnn[r["case"]] = cudnn_us and 2 * m * n * k / cudnn_us / 1e6
        if r["gemm"] not in ort:
            ort[r["gemm"]] = ort_conv_tops(r) if "--ort" in sys.argv else None
        ort_tops = ort[r["gemm"]]
        rows.append([r["case"], r["gemm"], r.get("path", ""), f"{r['median_ns'] / 1e3:.1f}", f"{r['tops']:.1f}",
                     fmt(mm, ".0f"), fmt(mm and r["tops"] / mm, ".2f"), fmt(cudnn[r["case"]], ".0f"),
                     f"{r['tops'] / peak:.2f}" if peak else "-",
                     f"{r['output_fill_ns'] / 1e3:.1f}" if "output_fill_ns" in r else "-",
                     f"{ort_tops:.3f}" if ort_tops else "-"])
    print_table(header, rows, markdown)


def kernel_label(r):
    """The kernels a convolution ran, short: 'coopmat_nv_n256_i32' for
    'convolution_integer_coopmat_nv_n256_i32', '+' between several."""
    return "+".join(k.replace("convolution_integer_", "") for k in r.get("kernels", "").split("+") if k) or r.get(
        "path", "")


def arithmetic(rows):
    """How the convolutions multiply: vkdml_bench's default, or --int8."""
    return ", ".join(sorted({"INT8 x INT8, no zero points" if r.get("dtype") == "INT8xINT8"
                             else "UINT8 x INT8, zero points" for r in rows}))


def network_tables(vk, markdown):
    """Per network (e.g. "resnet50 n32"): one row per distinct convolution
    and the network's totals, time x count summed."""
    layers = [r for r in vk["results"] if r["operator"] == "conv" and "network" in r]
    for network in dict.fromkeys(r["network"] for r in layers):
        rows_in = [r for r in layers if r["network"] == network]
        print()
        print(f"{network}: {sum(r['count'] for r in rows_in)} convolutions, {len(rows_in)} distinct "
              f"({arithmetic(rows_in)}; vkdml path: {', '.join(sorted({r.get('path', '') for r in rows_in}))})")
        header = ["layer", "count", "GEMM MxNxK", "vkdml kernels", "vkdml us", "vkdml TOPS", "_int_mm us",
                  "_int_mm TOPS", "vkdml/_int_mm", "unfold+_int_mm us", "vkdml/(unfold+_int_mm)", "cuDNN int8 us",
                  "vkdml/cuDNN", "output fill us"]
        rows = []
        total_ops = total_vk = total_mm = total_unfold = total_cudnn = 0.0
        mm_complete = unfold_complete = cudnn_complete = True
        for r in rows_in:
            m, n, k = dims(r["gemm"])
            ops = 2.0 * m * n * k
            mm = int_mm_tops_cached(r["gemm"])
            mm_us = ops / mm / 1e6 if mm else None
            total_ops += ops * r["count"]
            total_vk += r["median_ns"] / 1e3 * r["count"]
            if mm_us is None:
                mm_complete = False
            else:
                total_mm += mm_us * r["count"]
            unfold_us = unfold_int_mm_us(r)
            if unfold_us is None:
                unfold_complete = False
            else:
                total_unfold += unfold_us * r["count"]
            cudnn_us = cudnn_int8_conv_us(r)
            if cudnn_us is None:
                cudnn_complete = False
            else:
                total_cudnn += cudnn_us * r["count"]
            vk_us = r["median_ns"] / 1e3
            rows.append([r["case"].removeprefix(network + " "), str(r["count"]), r["gemm"], kernel_label(r),
                         f"{vk_us:.1f}", f"{r['tops']:.1f}", fmt(mm_us, ".1f"), fmt(mm, ".0f"),
                         fmt(mm and r["tops"] / mm, ".2f"), fmt(unfold_us, ".1f"),
                         fmt(unfold_us and unfold_us / vk_us, ".2f"), fmt(cudnn_us, ".1f"),
                         fmt(cudnn_us and cudnn_us / vk_us, ".2f"),
                         f"{r['output_fill_ns'] / 1e3:.1f}" if "output_fill_ns" in r else "-"])
        mm_total = total_mm if mm_complete and total_mm else None
        unfold_total = total_unfold if unfold_complete and total_unfold else None
        cudnn_total = total_cudnn if cudnn_complete and total_cudnn else None
        rows.append([f"**total** ({network})" if markdown else f"total ({network})",
                     str(sum(r["count"] for r in rows_in)), f"{total_ops / 1e9:.1f} GOP", "",
                     f"{total_vk:.1f}", f"{total_ops / total_vk / 1e6:.1f}", fmt(mm_total, ".1f"),
                     fmt(mm_total and total_ops / mm_total / 1e6, ".0f"),
                     fmt(mm_total and mm_total / total_vk, ".2f"), fmt(unfold_total, ".1f"),
                     fmt(unfold_total and unfold_total / total_vk, ".2f"), fmt(cudnn_total, ".1f"),
                     fmt(cudnn_total and cudnn_total / total_vk, ".2f"), ""])
        print_table(header, rows, markdown)


def history_table(vk, others, markdown):
    """The convolutions of `vk` next to the same cases (case and path) in
    other runs: vkdml's time in each and its ratio to `vk`'s."""
    convs = [r for r in vk["results"] if r["operator"] == "conv"]
    if not convs or not others:
        return
    print()
    print("Memory history: vkdml us in each run (ratio to the first run); " +
          "; ".join(f"{label}: VKDML_ALLOCATION={o.get('allocation') or '(unset)'}, "
                    f"churn {o.get('churn_gib', 0)} GiB, wait {o.get('churn_wait_ms', 0)} ms"
                    for label, o in others))
    header = ["case", "path", "first run us"] + [f"{label} us" for label, _ in others]
    index = [{(r["case"], r.get("path", "")): r for r in o["results"] if r["operator"] == "conv"} for _, o in others]
    rows = []
    totals = {}  # network -> [first, each other] time x count, None where a case is missing
    for r in convs:
        key = (r["case"], r.get("path", ""))
        row = [r["case"], r.get("path", ""), f"{r['median_ns'] / 1e3:.1f}"]
        if "network" in r:
            t = totals.setdefault(r["network"], [0.0] + [0.0] * len(others))
            t[0] += r["median_ns"] / 1e3 * r["count"]
        for i, other in enumerate(index):
            o = other.get(key)
            row.append(f"{o['median_ns'] / 1e3:.1f} ({o['median_ns'] / r['median_ns']:.2f})" if o else "-")
            if "network" in r:
                t = totals[r["network"]]
                t[i + 1] = None if o is None or t[i + 1] is None else t[i + 1] + o["median_ns"] / 1e3 * r["count"]
        rows.append(row)
    for network, t in totals.items():
        rows.append([f"total ({network}, time x count)", "", f"{t[0]:.1f}"] +
                    [f"{v:.1f} ({v / t[0]:.2f})" if v is not None else "-" for v in t[1:]])
    print_table(header, rows, markdown)


def write_chart(vk, path, torch_gbps):
    """One bar group per case: vkdml, PyTorch and the limit; a panel for
    data movement (GB/s), one for the convolutions and one per network (TOPS,
    log scale). Never fails the run: without matplotlib it says so."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"\nno matplotlib ({e}): chart left out")
        return
    try:
        peak = next((r["tops"] for r in vk["results"] if r["operator"] == "coopmat"), None)
        panels = []  # (title, unit, log, [(label, vkdml, pytorch, limit)], names of the three bars)
        moves = [r for r in vk["results"] if r.get("bytes") and not r["case"].startswith("latency")]
        if moves:
            panels.append(("Data movement (latency cases left out)", "GB/s", False,
                           [(r["case"], r["gbps"], torch_gbps.get(r["case"]), r["copy_gbps"]) for r in moves],
                           ("vkdml", "PyTorch", "copy limit (same run)")))
        convs = {}
        for r in vk["results"]:
            if r["operator"] != "conv":
                continue
            best = convs.get(r["case"])
            # The default path where measured, else the fastest path.
            if best is None or (r.get("path") == "auto") or (best.get("path") != "auto" and r["tops"] > best["tops"]):
                convs[r["case"]] = r
        bars = ("vkdml", "torch._int_mm (same GEMM)", "int8 coopmat peak (same run)")
        plain = [r for r in convs.values() if "network" not in r]
        if plain:
            panels.append(("Convolutions (vkdml: default path, else fastest)", "TOPS", True,
                           [(f"{r['case']} [{r.get('path', '')}]", r["tops"], int_mm_tops_cached(r["gemm"]), peak)
                            for r in plain], bars))
        layers = [r for r in convs.values() if "network" in r]
        for network in dict.fromkeys(r["network"] for r in layers):
            group = [r for r in layers if r["network"] == network]
            items = [(f"{r['case'].removeprefix(network + ' ')} x{r['count']}", r["tops"],
                      int_mm_tops_cached(r["gemm"]), peak) for r in group]
            ops = sum(2.0 * eval_gemm(r["gemm"]) * r["count"] for r in group)
            vk_us = sum(r["median_ns"] / 1e3 * r["count"] for r in group)
            mm = [int_mm_tops_cached(r["gemm"]) for r in group]
            mm_us = None if None in mm else sum(2.0 * eval_gemm(r["gemm"]) * r["count"] / t / 1e6
                                                for r, t in zip(group, mm))
            items.append(("TOTAL (time x count)", ops / vk_us / 1e6, mm_us and ops / mm_us / 1e6, peak))
            panels.append((f"{network}: every distinct convolution (x count in the network)", "TOPS", True, items,
                           bars))
        if not panels:
            print("\nnothing to chart")
            return
        widest = max(len(p[3]) for p in panels)
        fig, axes = plt.subplots(len(panels), 1, figsize=(max(8.0, 0.5 * widest + 2), 4.8 * len(panels)),
                                 squeeze=False)
        for ax, (title, unit, log, items, names) in zip(axes[:, 0], panels):
            x = range(len(items))
            for j, (name, color) in enumerate(zip(names, ("tab:blue", "tab:orange", "tab:gray"))):
                values = [item[1 + j] or 0 for item in items]
                if any(values):
                    ax.bar([i + (j - 1) * 0.27 for i in x], values, 0.27, label=name, color=color)
            ax.set_xticks(list(x))
            ax.set_xticklabels([item[0] for item in items], rotation=60, ha="right", fontsize=7)
            ax.set_ylabel(unit)
            if log:
                ax.set_yscale("log")
            ax.set_title(title, fontsize=10)
            ax.legend(fontsize=8)
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle(f"vkdml vs PyTorch on {vk['device']}", fontsize=11)
        fig.tight_layout(rect=(0, 0, 1, 0.98))
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"\nchart: {path}")
    except Exception as e:  # the chart is an extra: report, never fail the tables
        print(f"\nchart left out: {type(e).__name__}: {e}")


def eval_gemm(gemm):
    m, n, k = dims(gemm)
    return m * n * k


def option_values(name):
    return [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == name]


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("--"):
        print(__doc__)
        return 2
    vk = json.load(open(sys.argv[1]))
    markdown = "--markdown" in sys.argv
    png = (option_values("--png") or [os.path.splitext(sys.argv[1])[0] + "_compare.png"])[-1]
    history = []
    for spec in option_values("--history"):
        label, _, file = spec.partition("=")
        history.append((label, json.load(open(file))))
    if "--history-only" in sys.argv:
        history_table(vk, history, markdown)
        return 0
    torch_gbps = {}
    if have_torch():
        copy_bytes = 1 << 30
        a = torch.empty(copy_bytes // 4, device="cuda", dtype=torch.float32)
        b = torch.empty_like(a)
        torch_copy = 2 * copy_bytes / median_ms(lambda: b.copy_(a)) / 1e6
        del a, b
        torch.cuda.empty_cache()
        print(f"device: {vk['device']} / {torch.cuda.get_device_name()}; PyTorch {torch.__version__}; "
              f"torch device copy of 1 GiB: {torch_copy:.0f} GB/s")
    else:
        print(f"device: {vk['device']}; no PyTorch with CUDA here ({'no torch module' if torch is None else 'no GPU'}):"
              " PyTorch columns left out")
    if vk.get("owned_weights"):
        print("convolution filters: DML_TENSOR_FLAG_OWNED_BY_DML (vkdml_bench --owned-weights): packed once by the "
              "initializer, outside the timed executions; torch._int_mm takes its weights as they are")
    header = ["operator", "case", "shape", "MB", "vkdml us", "vkdml GB/s", "PyTorch us", "PyTorch GB/s",
              "copy GB/s", "vkdml/PyTorch", "vkdml/copy"]
    rows = []
    for r in vk["results"]:
        if not r.get("bytes"):
            continue
        work = torch_case(r) if have_torch() else None
        torch_ms = median_ms(work) if work else None
        if torch_ms:
            torch_gbps[r["case"]] = r["bytes"] / torch_ms / 1e6
        tg = torch_gbps.get(r["case"])
        rows.append([r["operator"], r["case"], r["shape"], f"{r['bytes'] / 1e6:.1f}", f"{r['median_ns'] / 1e3:.1f}",
                     f"{r['gbps']:.0f}", fmt(torch_ms and torch_ms * 1e3, ".1f"), fmt(tg, ".0f"),
                     f"{r['copy_gbps']:.0f}", fmt(tg and r["gbps"] / tg, ".2f"), f"{r['ratio_to_copy']:.2f}"])
        del work
        if have_torch():
            torch.cuda.empty_cache()
    if rows:
        print_table(header, rows, markdown)
    convolution_table(vk, markdown)
    network_tables(vk, markdown)
    history_table(vk, history, markdown)
    write_chart(vk, png, torch_gbps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
