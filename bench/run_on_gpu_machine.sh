#!/bin/bash
# Runs the test suite, the large benchmarks and bench/compare_torch.py on a
# machine without a Vulkan loader (the H200 machine): unpacks the Debian loader
# packages from .gl/ and takes the binaries, the validation layer and the
# conformance cases from .gpu/ (bench/RESULTS.md says how they are gathered).
# Writes to $OUT. The whole test suite runs, then the convolution tests again
# through each path, forced: TESTS=paths runs only the latter, TESTS=none
# neither. BENCH_FILTER=TEXT runs only the benchmark cases whose name
# contains TEXT. SKIP_COMPARE=1 leaves out bench/compare_torch.py.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export XDG_RUNTIME_DIR=/tmp
export LD_LIBRARY_PATH=$PWD/.gpu:$PWD/.gpu/layers VK_LAYER_PATH=$PWD/.gpu/layers VKDML_CONFORMANCE_DIR=$PWD/.gpu/conformance
ls /usr/local/nvidia/share/vulkan/icd.d/ /etc/vulkan/icd.d /usr/share/vulkan/icd.d 2>&1 | head
if ! vulkaninfo --summary > $OUT/vulkaninfo.txt 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  vulkaninfo --summary > $OUT/vulkaninfo.txt 2>&1 || { head -5 $OUT/vulkaninfo.txt; exit 1; }
fi
grep -E "deviceName|driverVersion|apiVersion" $OUT/vulkaninfo.txt | head -6
export VKDML_DEVICE=NVIDIA
if [ "$TESTS" != none ]; then
  if [ "$TESTS" != paths ]; then
    .gpu/vkdml_tests "$@" > $OUT/tests.txt 2>&1; echo "tests exit $?"; tail -4 $OUT/tests.txt
    grep -E "ERROR|validation" $OUT/tests.txt | head -20
  fi
  for path in portable dot coopmat coopmat-emulated coopmat:0 coopmat:b coopmat:ab; do
    packing=${path#*:}; [ "$packing" = "$path" ] && packing="" || path=${path%%:*}
    name=$path${packing:+-packing-$packing}
    .gpu/vkdml_tests -tc="convolution_integer*" --convolution-path=$path ${packing:+--convolution-packing=$packing} \
      > $OUT/tests-$name.txt 2>&1
    echo "tests through $name: exit $?"; tail -3 $OUT/tests-$name.txt; grep -E "ERROR|validation" $OUT/tests-$name.txt | head -10
  done
fi
# The convolutions run in a process of their own: after the data-movement
# cases (GiB-sized buffers) in the same process, their sub-millisecond kernels
# measured 1.5 to 4.5 times slower (bench/RESULTS.md).
if [ -n "$BENCH_FILTER" ]; then
  .gpu/vkdml_bench --large --filter "$BENCH_FILTER" --json $OUT/bench$RUN.json 2>&1 | tee $OUT/bench$RUN.txt
else
  .gpu/vkdml_bench --large --exclude conv --json $OUT/bench_data$RUN.json 2>&1 | tee $OUT/bench$RUN.txt
  .gpu/vkdml_bench --large --filter conv --json $OUT/bench_conv$RUN.json 2>&1 | tee -a $OUT/bench$RUN.txt
  python3 -c "import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:3]); a['results'] += b['results']; json.dump(a, open(sys.argv[3], 'w'), indent=1)" \
    $OUT/bench_data$RUN.json $OUT/bench_conv$RUN.json $OUT/bench$RUN.json
fi
[ -z "$SKIP_COMPARE" ] || exit 0
python3 -c "import onnx" 2>/dev/null && ORT=--ort || echo "no onnx package: ONNX Runtime column left out"
python3 bench/compare_torch.py $OUT/bench$RUN.json --markdown $ORT 2>&1 | tee $OUT/compare.md
