#!/usr/bin/env python3
"""What an int8 GEMM reaches on ResNet-50's shapes when it is built the way a
Vulkan kernel on this driver must be: warp-level tensor-core multiplies
(mma.sync), at most 48 KiB of shared memory, and one or two stages. Triton
writes the kernels, so the same source runs with and without each limit:

  wgmma      Triton's own choice on Hopper (warpgroup MMA), 3-4 stages, no cap
  mma        warp-level mma.sync (DISABLE_MMA_V3=1), 3-4 stages of
             asynchronous copies, up to 227 KiB: what torch._int_mm's CUTLASS
             kernels do (bench/results/gemm_limits.md)
  mma48s2    mma.sync, 2 stages (asynchronous copies), 48 KiB or less
  mma48s1    mma.sync, 1 stage (loads, then stores to shared memory, then a
             barrier: no copy in flight during the multiplies), 48 KiB or less

A vkdml K step sits between the last two: its next step's loads are in
flight during the multiplies (in registers; Vulkan has no asynchronous
copy), in 48 KiB. Each figure is the fastest of the tile configurations
below that the mode allows, timed as compare_torch.py times torch._int_mm
(GPU time, median of 10), beside torch._int_mm in the same process; every
kernel's output is checked equal to torch._int_mm's (with --zero-points, to
an exact float64 product).

    python3 bench/triton_ceiling.py MODE [--layout rows|nchw|a-m|c-m] [--zero-points] [--bk N] [--warps N]
                                         [--sm-shared BYTES] [--json FILE]

One mode per process. --layout: rows (the default) gives A K-contiguous and
C N-contiguous, as torch._int_mm takes and gives them; nchw stores both
M-contiguous (A as K x M, C as N x M), as a 1x1 convolution's NCHW input and
output lie at batch 1; a-m and c-m make only A, or only C, M-contiguous;
--zero-points makes A uint8 with a zero point and B int8 with one per
output channel, as the ResNet-50 cases of vkdml_bench are; --bk and --warps
keep only the tiles of that K step depth or warp count (vkdml's: --bk 32).
--sm-shared BYTES runs as many workgroups on an SM as BYTES of shared memory
hold, as CUDA counts it (each kernel's own, plus 1 KiB reserved per
workgroup), where CUDA alone would fit up to 228 KiB: NVIDIA's Vulkan driver
gives a dispatch about 48 KiB an SM (bench/results/occupancy.md), so 49152
holds these kernels to that. Each launch asks for more dynamic shared memory
than the kernel uses, so that 228 KiB fits no more of them, with the SM's
carveout set to all shared memory (L1 then 28 KiB); 233472 keeps CUDA's count
with the same carveout and padding rules, the control for L1.

Needs PyTorch with CUDA and Triton. DISABLE_MMA_V3 must be set before
Triton compiles, which is why each mode runs in its own process.
"""
import ctypes
import json
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import median_ms  # noqa: E402

# ResNet-50's 53 convolutions at batch 32 as GEMMs (bench/results/resnet50_h200.md):
# name, count, M at batch 32 (batch 1: M / 32), N, K.
LAYERS = [
    ("stem 7x7/2 3->64 224x224", 1, 401408, 64, 147),
    ("layer1 1x1 64->64 56x56", 1, 100352, 64, 64),
    ("layer1 3x3 64->64 56x56", 3, 100352, 64, 576),
    ("layer1 1x1 64->256 56x56", 4, 100352, 256, 64),
    ("layer1 1x1 256->64 56x56", 2, 100352, 64, 256),
    ("layer2 1x1 256->128 56x56", 1, 100352, 128, 256),
    ("layer2 3x3/2 128->128 56x56", 1, 25088, 128, 1152),
    ("layer2 1x1 128->512 28x28", 4, 25088, 512, 128),
    ("layer2 down 1x1/2 256->512 56x56", 1, 25088, 512, 256),
    ("layer2 1x1 512->128 28x28", 3, 25088, 128, 512),
    ("layer2 3x3 128->128 28x28", 3, 25088, 128, 1152),
    ("layer3 1x1 512->256 28x28", 1, 25088, 256, 512),
    ("layer3 3x3/2 256->256 28x28", 1, 6272, 256, 2304),
    ("layer3 1x1 256->1024 14x14", 6, 6272, 1024, 256),
    ("layer3 down 1x1/2 512->1024 28x28", 1, 6272, 1024, 512),
    ("layer3 1x1 1024->256 14x14", 5, 6272, 256, 1024),
    ("layer3 3x3 256->256 14x14", 5, 6272, 256, 2304),
    ("layer4 1x1 1024->512 14x14", 1, 6272, 512, 1024),
    ("layer4 3x3/2 512->512 14x14", 1, 1568, 512, 4608),
    ("layer4 1x1 512->2048 7x7", 3, 1568, 2048, 512),
    ("layer4 down 1x1/2 1024->2048 14x14", 1, 1568, 2048, 1024),
    ("layer4 1x1 2048->512 7x7", 2, 1568, 512, 2048),
    ("layer4 3x3 512->512 7x7", 2, 1568, 512, 4608),
]

# Tiles (BM, BN, BK, warps), the stages per mode, and each mode's cap on shared memory.
TILES = [(128, 128, 64, 8), (128, 128, 64, 4), (128, 256, 64, 8), (256, 128, 64, 8), (128, 64, 64, 4),
         (64, 128, 64, 4), (64, 64, 64, 4), (64, 64, 128, 4), (128, 128, 32, 8), (128, 256, 32, 8),
         (128, 64, 32, 4), (64, 64, 32, 4)]
MODES = {
    "wgmma": dict(mma_v3=True, stages=(3, 4), shared=232448),
    "mma": dict(mma_v3=False, stages=(3, 4), shared=232448),
    "mma48s2": dict(mma_v3=False, stages=(2,), shared=49152),
    "mma48s1": dict(mma_v3=False, stages=(1,), shared=49152),
}


SM_SHARED = 233472  # an H100's or H200's shared memory per SM, at the largest carveout
RESERVED = 1024  # CUDA's shared memory reserved per workgroup on these GPUs


def hold_to_sm_shared(kernel, warps, sm_shared):
    """Pads the compiled kernel's launches so that an SM holds only as many of
    its workgroups as sm_shared bytes would; returns (padded bytes, workgroups
    per SM by CUDA's occupancy calculator)."""
    cuda = ctypes.CDLL("libcuda.so.1")
    per_sm = max(1, sm_shared // (kernel.metadata.shared + RESERVED))
    padded = min(SM_SHARED // per_sm - RESERVED, SM_SHARED - RESERVED)
    packed = list(kernel.packed_metadata)
    # Triton caches the kernel, so a later layer may find it padded already.
    assert packed[2] in (kernel.metadata.shared, padded), "Triton's packed metadata: (warps, ctas, shared, ...)"
    packed[2] = padded
    kernel.packed_metadata = tuple(packed)
    fn = ctypes.c_void_p(kernel.function)
    for attribute, value in ((8, padded), (9, 100)):  # MAX_DYNAMIC_SHARED_SIZE_BYTES, PREFERRED_..._CARVEOUT
        if cuda.cuFuncSetAttribute(fn, attribute, value) != 0:
            raise SystemExit(f"cuFuncSetAttribute({attribute}, {value}) failed")
    blocks = ctypes.c_int()
    if cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(blocks), fn, 32 * warps, padded) != 0:
        raise SystemExit("cuOccupancyMaxActiveBlocksPerMultiprocessor failed")
    return padded, blocks.value


@triton.jit
def gemm(a_ptr, b_ptr, wz_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bn, stride_cm, stride_cn, xz,
         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, ZP: tl.constexpr):
    # C = A B^T: A M x K, B N x K (rows of K), C M x N int32, each at its strides;
    # tiles in groups of GROUP_M rows of tiles, for L2 reuse. With ZP, A is
    # uint8 with zero point xz and B int8 with a zero point per row (wz), as
    # vkdml does it: A flipped to int8 (a - 128) as it is loaded, and the
    # zero points folded in at the end with row and column sums.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    row_sums = tl.zeros((BM,), dtype=tl.int32)
    col_sums = tl.zeros((BN,), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a_mask = (rm[:, None] < M) & (rk[None, :] < left)
        if ZP:
            av = (tl.load(a, mask=a_mask, other=128).to(tl.int32) - 128).to(tl.int8)
        else:
            av = tl.load(a, mask=a_mask, other=0)
        bv = tl.load(b, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0)
        acc = tl.dot(av, bv, acc, out_dtype=tl.int32)
        if ZP:
            row_sums += tl.sum(av.to(tl.int32), axis=1)
            col_sums += tl.sum(bv.to(tl.int32), axis=0)
        a += BK * stride_ak
        b += BK
    if ZP:
        wz = tl.load(wz_ptr + rn, mask=rn < N, other=0).to(tl.int32)
        xzf = xz - 128
        acc = acc - wz[None, :] * row_sums[:, None] - xzf * col_sums[None, :] + K * xzf * wz[None, :]
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def operands(m, n, kp, layout, zero_points):
    """A (M x K, at the layout's strides), B (N x K), the filter zero points,
    C, and the expected C (M x N): torch._int_mm's, or with zero points an
    exact float64 product."""
    dev = "cuda"
    a_m, c_m = layout in ("nchw", "a-m"), layout in ("nchw", "c-m")
    if zero_points:
        a_store = torch.randint(0, 256, (kp, m) if a_m else (m, kp), dtype=torch.uint8, device=dev)
    else:
        a_store = torch.randint(-128, 128, (kp, m) if a_m else (m, kp), dtype=torch.int8, device=dev)
    a = a_store.t() if a_m else a_store
    b = torch.randint(-128, 128, (n, kp), dtype=torch.int8, device=dev)
    wz = torch.randint(-128, 128, (n,), dtype=torch.int8, device=dev)
    c = torch.empty((n, m) if c_m else (m, n), dtype=torch.int32, device=dev)
    if zero_points:
        want = ((a.double() - XZ) @ (b.double() - wz.double()[:, None]).t()).to(torch.int32)
    else:
        want = torch._int_mm(a.contiguous(), b.t())
    return a, b, wz, c.t() if c_m else c, want


XZ = 3  # the input zero point with --zero-points


def run_mode(mode, layout, zero_points, tiles, sm_shared):
    cfg = MODES[mode]
    results = []
    for batch in (32, 1):
        for name, count, m32, n, k in LAYERS:
            m = m32 // 32 * batch
            kp = (k + 15) // 16 * 16  # _int_mm needs K % 8; 16 keeps Triton's loads aligned
            a_mm = torch.randint(-128, 128, (m, kp), dtype=torch.int8, device="cuda")
            b_mm = torch.randint(-128, 128, (n, kp), dtype=torch.int8, device="cuda")
            int_mm_us = 1000 * median_ms(lambda: torch._int_mm(a_mm, b_mm.t()))
            del a_mm, b_mm
            a, b, wz, c, want = operands(m, n, kp, layout, zero_points)
            best = None
            for bm, bn, bk, warps in tiles:
                for stages in cfg["stages"]:
                    if stages * (bm + bn) * bk > cfg["shared"]:
                        continue
                    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
                    args = (a, b, wz, c, m, n, kp, a.stride(0), a.stride(1), b.stride(0), c.stride(0), c.stride(1),
                            XZ)
                    kw = dict(BM=bm, BN=bn, BK=bk, GROUP_M=8, ZP=zero_points, num_warps=warps, num_stages=stages)
                    try:
                        kernel = gemm[grid](*args, **kw)
                    except Exception as e:  # a tile this Triton cannot build in this mode
                        print(f"{mode} {bm}x{bn}x{bk} w{warps} s{stages}: {str(e).splitlines()[0][:120]}",
                              file=sys.stderr)
                        continue
                    shared = kernel.metadata.shared
                    if shared > cfg["shared"]:
                        continue
                    padded, per_sm = hold_to_sm_shared(kernel, warps, sm_shared) if sm_shared else (shared, None)
                    if sm_shared and not results and best is None:  # once: the launches take the padding
                        padded_metadata = kernel.packed_metadata
                        kernel.packed_metadata = padded_metadata[:2] + (SM_SHARED + 1,) + padded_metadata[3:]
                        try:
                            gemm[grid](*args, **kw)
                            torch.cuda.synchronize()
                            raise SystemExit("a launch past the SM's shared memory ran: the padding is not applied")
                        except Exception:  # noqa: BLE001 (CUDA refuses the launch)
                            pass
                        kernel.packed_metadata = padded_metadata
                    c.zero_()
                    gemm[grid](*args, **kw)
                    torch.cuda.synchronize()
                    if not torch.equal(c, want):
                        raise SystemExit(f"{mode} {name} n{batch} {bm}x{bn}x{bk}: wrong result")
                    us = 1000 * median_ms(lambda: gemm[grid](*args, **kw))
                    if best is None or us < best["us"]:
                        best = dict(us=us, tile=f"{bm}x{bn}x{bk} w{warps} s{stages}", shared=shared,
                                    registers=kernel.n_regs, spills=kernel.n_spills, padded=padded,
                                    per_sm=per_sm)
                    c.zero_()
            row = dict(mode=mode, layout=layout, zero_points=zero_points, batch=batch, layer=name, count=count,
                       gemm=f"{m}x{n}x{k}", int_mm_us=int_mm_us, **(best or {}))
            results.append(row)
            print(f"{mode:8} n{batch:<2} {name:36} {row['gemm']:>16} _int_mm {int_mm_us:7.1f} us  "
                  f"triton {best['us'] if best else float('nan'):7.1f} us  {best['tile'] if best else '-'}"
                  f"  {best['shared'] if best else '-'} B, {best['registers'] if best else '-'} regs"
                  f"{'' if not best or best['per_sm'] is None else ', %d per SM' % best['per_sm']}", flush=True)
            del a, b, wz, c, want
            torch.cuda.empty_cache()
    for batch in (32, 1):
        rows = [r for r in results if r["batch"] == batch and "us" in r]
        if len(rows) == len(LAYERS):
            ours = sum(r["count"] * r["us"] for r in rows)
            theirs = sum(r["count"] * r["int_mm_us"] for r in rows)
            print(f"{mode:8} n{batch:<2} total: triton {ours:.1f} us, _int_mm {theirs:.1f} us, "
                  f"_int_mm/triton {theirs / ours:.2f}")
    return results


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        raise SystemExit(f"usage: {sys.argv[0]} {{{'|'.join(MODES)}}} [--layout rows|nchw|a-m|c-m] "
                         "[--zero-points] [--bk N] [--warps N] [--sm-shared BYTES] [--json FILE]")
    mode = sys.argv[1]
    layout = sys.argv[sys.argv.index("--layout") + 1] if "--layout" in sys.argv else "rows"
    if layout not in ("rows", "nchw", "a-m", "c-m"):
        raise SystemExit("--layout: rows, nchw, a-m or c-m")
    zero_points = "--zero-points" in sys.argv
    # --bk N, --warps N: only the tiles of that depth or warp count.
    def keeps(tile, name, i):
        return f"--{name}" not in sys.argv or tile[i] == int(sys.argv[sys.argv.index(f"--{name}") + 1])
    tiles = [t for t in TILES if keeps(t, "bk", 2) and keeps(t, "warps", 3)]
    sm_shared = int(sys.argv[sys.argv.index("--sm-shared") + 1]) if "--sm-shared" in sys.argv else 0
    if not MODES[mode]["mma_v3"] and os.environ.get("DISABLE_MMA_V3") != "1":
        os.execvpe(sys.executable, [sys.executable] + sys.argv, dict(os.environ, DISABLE_MMA_V3="1"))
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}, mode {mode}, "
          f"layout {layout}{', zero points' if zero_points else ''}"
          f"{f', {sm_shared} B of shared memory an SM' if sm_shared else ''}")
    results = run_mode(mode, layout, zero_points, tiles, sm_shared)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
