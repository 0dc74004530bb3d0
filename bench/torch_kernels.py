#!/usr/bin/env python3
"""Prints the CUDA kernels PyTorch launches for an int8 convolution, and for
torch._int_mm on its GEMM, with their grids, blocks, registers and shared
memory (torch.profiler), on a few ResNet-50 layers: what the anchors of
bench/compare_torch.py run. Needs PyTorch with CUDA.

    python3 bench/torch_kernels.py

The convolution is cudnn_int8_conv_us's (compare_torch.py): quantized::conv2d
on QuantizedCUDA tensors, qint8 channels-last input; _int_mm takes A as M x K
and B column-major, K padded to a multiple of 8.
"""
import json
import os
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

# name, batch, channels, height, width, output channels, kernel, stride, padding
LAYERS = [
    ("stem 7x7/2 3->64 224x224 (channels padded to 4), n32", 32, 4, 224, 224, 64, 7, 2, 3),
    ("layer1 3x3 64->64 56x56, n32", 32, 64, 56, 56, 64, 3, 1, 1),
    ("layer2 1x1 256->128 56x56, n32", 32, 256, 56, 56, 128, 1, 1, 0),
    ("layer3 3x3 256->256 14x14, n32", 32, 256, 14, 14, 256, 3, 1, 1),
    ("layer3 1x1 1024->256 14x14, n32", 32, 1024, 14, 14, 256, 1, 1, 0),
    ("3x3 256->256 56x56, n32", 32, 256, 56, 56, 256, 3, 1, 1),
    ("layer3 1x1 512->256 28x28, n1", 1, 512, 28, 28, 256, 1, 1, 0),
    ("layer3 3x3 256->256 14x14, n1", 1, 256, 14, 14, 256, 3, 1, 1),
]


def kernels(fn):
    """The kernels one call of fn launches: name, µs, grid, block, registers, shared bytes."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        events = json.load(open(path))["traceEvents"]
    return [(e["name"][:110], e.get("dur"), e["args"].get("grid"), e["args"].get("block"),
             e["args"].get("registers per thread"), e["args"].get("shared memory"))
            for e in events if e.get("cat") == "kernel"]


def main():
    dev = "cuda"
    print(torch.__version__, torch.cuda.get_device_name())
    for name, n, c, h, w, oc, k, stride, pad in LAYERS:
        x = torch.quantize_per_tensor(torch.randn(n, c, h, w, device=dev), 0.05, 0, torch.qint8)
        x = x.contiguous(memory_format=torch.channels_last)
        f = torch.quantize_per_tensor(torch.randn(oc, c, k, k, device=dev), 0.01, 0, torch.qint8)
        packed = torch.ops.quantized.conv2d_prepack(f, None, [stride] * 2, [pad] * 2, [1, 1], 1)
        oh = (h + 2 * pad - k) // stride + 1
        ow = (w + 2 * pad - k) // stride + 1
        m, kk = n * oh * ow, (c * k * k + 7) // 8 * 8
        a = torch.randint(-128, 128, (m, kk), device=dev, dtype=torch.int8)
        b = torch.randint(-128, 128, (oc, kk), device=dev, dtype=torch.int8).t()
        for label, fn in (("cuDNN int8 convolution", lambda: torch.ops.quantized.conv2d(x, packed, 0.5, 0)),
                          (f"torch._int_mm {m}x{oc}x{kk}", lambda: torch._int_mm(a, b))):
            print(f"== {name}: {label}")
            for kernel in kernels(fn):
                print("  ", kernel)


if __name__ == "__main__":
    main()
