#!/bin/bash
# Runs the test suite, the large benchmarks and bench/compare_torch.py on a
# machine without a Vulkan loader (the H200 machine): unpacks the Debian loader
# packages from .gl/ and takes the binaries, the validation layer and the
# conformance cases from .gpu/ (docs/benchmarking.md says how they are gathered).
# Writes to $OUT. The whole test suite runs, then the convolution tests again
# through each path, forced: TESTS=paths runs only the latter, TESTS=none
# neither; PATHS="coopmat coopmat:b" picks the paths (and packings), and
# TEST_TIMEOUT bounds each test run (seconds). BENCH_FILTER=TEXT runs only the benchmark cases whose name
# contains TEXT. SKIP_COMPARE=1 leaves out bench/compare_torch.py; BENCH=none
# stops after the tests.
# MODE=resnet50 runs, after the tests, bench/resnet50_layers.sh instead: ResNet-50
# layer by layer in fresh processes, and after idle and busy GPU time.
# $OUT/timings.txt says when each part ended (seconds from the start).
T0=$(date +%s)
stamp() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a $OUT/timings.txt; }
if ls .gl/*.deb > /dev/null 2>&1; then for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; fi
export XDG_RUNTIME_DIR=/tmp
export LD_LIBRARY_PATH=$PWD/.gpu:$PWD/.gpu/layers VK_LAYER_PATH=$PWD/.gpu/layers VKDML_CONFORMANCE_DIR=$PWD/.gpu/conformance
ls /usr/local/nvidia/share/vulkan/icd.d/ /etc/vulkan/icd.d /usr/share/vulkan/icd.d 2>&1 | head
if ! command -v vulkaninfo > /dev/null; then
  echo "no vulkaninfo"
elif ! vulkaninfo --summary > $OUT/vulkaninfo.txt 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  vulkaninfo --summary > $OUT/vulkaninfo.txt 2>&1 || { head -5 $OUT/vulkaninfo.txt; exit 1; }
fi
grep -E "deviceName|driverVersion|apiVersion" $OUT/vulkaninfo.txt 2>/dev/null | head -6
export VKDML_DEVICE=${VKDML_DEVICE:-NVIDIA}
stamp "setup"
if [ "$TESTS" != none ]; then
  if [ "$TESTS" != paths ]; then
    timeout ${TEST_TIMEOUT:-900} .gpu/vkdml_tests "$@" > $OUT/tests.txt 2>&1; echo "tests exit $?"; tail -4 $OUT/tests.txt
    grep -E "ERROR|validation" $OUT/tests.txt | head -20
  fi
  for path in ${PATHS:-portable dot coopmat coopmat-emulated coopmat:0 coopmat:b coopmat:ab coopmat:nhwc}; do
    packing=${path#*:}; [ "$packing" = "$path" ] && packing="" || path=${path%%:*}
    name=$path${packing:+-packing-$packing}
    timeout ${TEST_TIMEOUT:-900} .gpu/vkdml_tests -tc="convolution_integer*" --convolution-path=$path ${packing:+--convolution-packing=$packing} \
      > $OUT/tests-$name.txt 2>&1
    echo "tests through $name: exit $?"; tail -3 $OUT/tests-$name.txt; grep -E "ERROR|validation" $OUT/tests-$name.txt | head -10
  done
  stamp "tests"
fi
# Merges the "results" of JSON files into the last one named.
merge() {
  python3 -c "import json, sys; a = json.load(open(sys.argv[1])); [a['results'].extend(json.load(open(f))['results']) for f in sys.argv[2:-1]]; json.dump(a, open(sys.argv[-1], 'w'), indent=1)" "$@"
}
[ "$BENCH" = none ] && exit 0
[ "$MODE" = resnet50 ] && { source bench/resnet50_layers.sh; exit 0; }
# Each convolution runs in a process of its own: after other cases in the
# same process (the data-movement cases' GiB-sized buffers, or the other
# convolutions), the sub-millisecond ones measured 1.5 to 4.5 times slower
# in some runs (bench/results/coopmat_gemm_first_sessions.md, the last point).
if [ -n "$BENCH_FILTER" ]; then
  .gpu/vkdml_bench --large --filter "$BENCH_FILTER" --json $OUT/bench$RUN.json 2>&1 | tee $OUT/bench$RUN.txt
else
  .gpu/vkdml_bench --large --exclude conv --json $OUT/bench_data$RUN.json 2>&1 | tee $OUT/bench$RUN.txt
  parts=$OUT/bench_data$RUN.json
  for c in "resnet 3x3" "resnet 1x1" "resnet stem" "1x1 8192"; do
    json=$OUT/bench_conv_${c// /_}$RUN.json
    .gpu/vkdml_bench --large --filter "conv $c" --json $json 2>&1 | grep "^conv" | tee -a $OUT/bench$RUN.txt
    parts="$parts $json"
  done
  merge $parts $OUT/bench$RUN.json
fi
stamp "benchmarks"
[ -z "$SKIP_COMPARE" ] || exit 0
python3 -c "import onnx" 2>/dev/null && ORT=--ort || echo "no onnx package: ONNX Runtime column left out"
python3 bench/compare_torch.py $OUT/bench$RUN.json --markdown $ORT 2>&1 | tee $OUT/compare.md
stamp "compare_torch.py"
