#!/usr/bin/env python3
"""Compiles the cooperative-matrix GEMM kernels with VKDML_TIMELINE (shaders/coopmat/timeline.glsl)
into a folder for VKDML_KERNEL_DIR, with the build's own glslangValidator command lines.

    tools/kernel_timeline/build_kernels.py BUILD_DIR OUT_DIR [NAME_REGEX]

NAME_REGEX picks the kernels by name (default: the NV kernels with 32-bit offsets at the default
fragment shape, convolution_integer_coopmat_nv_*_i32[_packed[_p3]])."""
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, out = sys.argv[1], os.path.abspath(sys.argv[2])
    pick = re.compile(sys.argv[3] if len(sys.argv) > 3 else r"convolution_integer_coopmat_nv_\w+_i32(_packed(_p3)?)?")
    ninja = open(os.path.join(build, "build.ninja")).read()
    # COMMAND = cd <dir> && <glslangValidator> ... -o <dir>/<name>.spv <source> && <spirv-val> ...
    found = re.findall(r"COMMAND = cd (\S+) && (\S*glslangValidator .*? -o )(\S+)/(\w+)\.spv (\S+)", ninja)
    os.makedirs(out, exist_ok=True)
    built = 0
    for cwd, command, _, name, source in found:
        if not pick.fullmatch(name):
            continue
        args = command.replace(" -o ", " -DVKDML_TIMELINE -o ").split() + [f"{out}/{name}.spv", source]
        subprocess.run(args, cwd=cwd, check=True)
        built += 1
    print(f"{built} kernels with VKDML_TIMELINE in {out}")
    if built == 0:
        sys.exit("no kernel matched: is BUILD_DIR a configured vkdml build (Ninja)?")


if __name__ == "__main__":
    main()
