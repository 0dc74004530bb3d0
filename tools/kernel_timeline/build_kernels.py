#!/usr/bin/env python3
"""Compiles the cooperative-matrix GEMM kernels with VKDML_TIMELINE (shaders/coopmat/timeline.glsl)
into a folder for VKDML_KERNEL_DIR, with the build's own glslangValidator command lines.

    tools/kernel_timeline/build_kernels.py [--spans] BUILD_DIR OUT_DIR [NAME_REGEX]

NAME_REGEX picks the kernels by name (default: the NV kernels with 32-bit offsets at the default
fragment shape, convolution_integer_coopmat_nv_*_i32[_packed[_p3]]). --spans records only each
workgroup's start and end (VKDML_TIMELINE_SPANS), leaving the kernel its registers."""
import os
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    spans = "--spans" in args
    args = [a for a in args if a != "--spans"]
    if len(args) < 2:
        sys.exit(__doc__)
    build, out = args[0], os.path.abspath(args[1])
    pick = re.compile(args[2] if len(args) > 2 else r"convolution_integer_coopmat_nv_\w+_i32(_packed(_p3)?)?")
    defines = " -DVKDML_TIMELINE" + (" -DVKDML_TIMELINE_SPANS" if spans else "")
    ninja = open(os.path.join(build, "build.ninja")).read()
    # COMMAND = cd <dir> && <glslangValidator> ... -o <dir>/<name>.spv <source> && <spirv-val> ...
    found = re.findall(r"COMMAND = cd (\S+) && (\S*glslangValidator .*? -o )(\S+)/(\w+)\.spv (\S+)", ninja)
    os.makedirs(out, exist_ok=True)
    built = 0
    for cwd, command, _, name, source in found:
        if not pick.fullmatch(name):
            continue
        line = command.replace(" -o ", defines + " -o ").split() + [f"{out}/{name}.spv", source]
        subprocess.run(line, cwd=cwd, check=True)
        built += 1
    print(f"{built} kernels with{defines.replace(' -D', ' ')} in {out}")
    if built == 0:
        sys.exit("no kernel matched: is BUILD_DIR a configured vkdml build (Ninja)?")


if __name__ == "__main__":
    main()
