#!/bin/bash
# A/B of two builds of libvkdml on the GPU machine: .gpu/old/libvkdml.so.0
# and .gpu/new/libvkdml.so.0, the same .gpu/vkdml_bench, the convolution
# cases (ResNet-50's layers included) through Auto and each forced packing,
# old and new interleaved ROUNDS times (default 2; PACKINGS, default "auto 0
# b ab", picks the packings); the faster round of each
# is what counts. First the new library's cooperative-matrix tests through
# each packing (TESTS=none leaves them out; TEST_PACKINGS picks them). LIBS
# (default "old new") names the builds under .gpu/ to time. Writes $OUT/ab/
# (and all of it as $OUT/ab.tgz):
#   (as docs/benchmarking.md says)
#   cp build/libvkdml.so.0 .gpu/new/; (build the old commit elsewhere) cp .../libvkdml.so.0 .gpu/old/
#   run: bash bench/ab_libraries.sh     then: python3 bench/ab_libraries.py $OUT/ab
T0=$(date +%s)
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export VK_LAYER_PATH=$PWD/.gpu/layers VKDML_CONFORMANCE_DIR=$PWD/.gpu/conformance VKDML_DEVICE=NVIDIA
mkdir -p $OUT/ab
for pk in $([ "$TESTS" = none ] || echo ${TEST_PACKINGS:-0 b ab nhwc}); do
  option=""; [ $pk != auto ] && option=--convolution-packing=$pk
  LD_LIBRARY_PATH=$PWD/.gpu/new:$PWD/.gpu/layers timeout ${TEST_TIMEOUT:-300} .gpu/vkdml_tests -tc="convolution_integer*" \
    --convolution-path=coopmat $option > $OUT/ab/tests-coopmat-$pk.txt 2>&1
  echo "tests coopmat packing $pk: exit $? [$(($(date +%s) - T0)) s]"
done
(cd $OUT && tar czf ab.tgz ab)
# RUNS="lib:packing ..." (e.g. "new:nhwc alt:ab") times those pairs instead
# of every LIBS x PACKINGS; FILTER (default "conv ") picks the cases.
runs=${RUNS:-$(for lib in ${LIBS:-old new}; do for pk in ${PACKINGS:-auto 0 b ab}; do echo $lib:$pk; done; done)}
for round in $(seq ${ROUNDS:-2}); do
  for run in $runs; do
    lib=${run%%:*}; pk=${run#*:}
    env=""; [ $pk != auto ] && env="VKDML_CONVOLUTION_PACKING=$pk"
    env LD_LIBRARY_PATH=$PWD/.gpu/$lib $env timeout 150 .gpu/vkdml_bench --large --path auto --filter "${FILTER:-conv }" \
      --json $OUT/ab/ab_${lib}_${pk}_$round.json > $OUT/ab/ab_${lib}_${pk}_$round.txt 2>&1
    echo "round $round $run: exit $? [$(($(date +%s) - T0)) s]"
  done
  (cd $OUT && tar czf ab.tgz ab)  # one file: few of $OUT's files come back
done
