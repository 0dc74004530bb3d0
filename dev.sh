#!/usr/bin/env bash
# A thin layer over the CMake presets (CMakePresets.json).
#   ./dev.sh run [bench args]   install missing Debian packages, build, run the benchmarks
#   ./dev.sh test [--large]     build and run the test suite (ctest); the cases named
#                               "[large]" (big tensors, minutes on lavapipe) only with --large
#   ./dev.sh asan               the test suite under AddressSanitizer + UBSan
#   ./dev.sh tsan               the thread tests under ThreadSanitizer
#   ./dev.sh subgroups          the whole test suite on lavapipe with subgroups of 1, 4, 16 and 64 lanes
#   ./dev.sh fuzz [seconds]     the descriptor fuzzer on a copy of fuzz/corpus (default 3600 s),
#                               then the model fuzzer (vkdml-dispatch's reader) a third as long
#   ./dev.sh fuzz FILE...       run those inputs once through the descriptor fuzzer
#   ./dev.sh fuzz-model FILE... run those inputs once through the model fuzzer
#   ./dev.sh fuzz-seeds         regenerate fuzz/corpus
#   ./dev.sh deps | build | install [prefix] | clean
set -euo pipefail
cd "$(dirname "$0")"
PACKAGES="cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools
          doctest-dev nlohmann-json3-dev mesa-vulkan-drivers vulkan-validationlayers"
FUZZ_PACKAGES="clang libclang-rt-dev"  # libFuzzer and the sanitizer runtimes
JOBS=${JOBS:-$(nproc)}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

deps() {
  local missing=""
  for p in $PACKAGES "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    echo "installing:$missing"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
  fi
}
build() {
  cmake --preset default >/dev/null
  cmake --build --preset default -j "$JOBS"
}

# The fuzz preset (build-fuzz/): clang, library and fuzzer under ASan + UBSan.
FUZZER=build-fuzz/fuzz/descriptor_fuzzer
MODEL_FUZZER=build-fuzz/fuzz/model_fuzzer
fuzz_build() {
  deps $FUZZ_PACKAGES
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$JOBS"
}
# A small quarantine: the default 256 MB, churned by the buffers each run
# allocates, bloats the process and slows it; recent frees stay poisoned.
fuzz_env() {
  ASAN_OPTIONS=abort_on_error=1:quarantine_size_mb=32 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 "$@"
}
# One process (no -jobs: the inputs are small, lavapipe's compiles are not);
# inputs stay small, each run takes milliseconds (fuzz/README.md).
# run_fuzzer BINARY SECONDS NAME SEEDS...: a bounded run on a corpus kept in build-fuzz/NAME.
run_fuzzer() {
  local binary=$1 seconds=$2 name=$3
  shift 3
  local corpus=build-fuzz/$name/corpus artifacts=build-fuzz/$name/artifacts
  mkdir -p $corpus $artifacts
  cp "$@" $corpus/  # seeds beside what earlier runs kept
  local status=0
  fuzz_env "$binary" -max_total_time="$seconds" -max_len=1024 -timeout=60 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix=$artifacts/ $corpus || status=$?
  if [ $status -ne 0 ]; then
    echo "fuzz: $name FAILED (exit $status). Reproduce a finding with: ./dev.sh $([ "$name" = model ] && echo fuzz-model || echo fuzz) $artifacts/<crash-...>" >&2
    ls -1 $artifacts >&2 || true
  fi
  return $status
}
fuzz() {
  fuzz_build
  if [ $# -gt 0 ] && [ -f "$1" ]; then
    fuzz_env "$FUZZER" "$@"
    return
  fi
  local seconds=${1:-3600}
  run_fuzzer "$FUZZER" "$seconds" descriptor fuzz/corpus/* fuzz/regressions/*
  run_fuzzer "$MODEL_FUZZER" $((seconds / 3 + 1)) model tests/models/*.json fuzz/model-regressions/*
}

command=${1:-test}
shift || true
case "$command" in
  deps) deps ;;
  build) build ;;
  run) deps; build; build/bench/vkdml_bench "$@" ;;
  test)
    preset=default
    [ "${1:-}" = --large ] && preset=all
    build
    ctest --preset "$preset" ;;
  asan)
    cmake --preset asan >/dev/null
    cmake --build --preset asan -j "$JOBS"
    ctest --preset asan ;;
  subgroups)
    # lavapipe's subgroup is its vector width / 32 (8 lanes by default).
    build
    for width in 32 128 512 2048; do
      echo "== LP_NATIVE_VECTOR_WIDTH=$width: subgroups of $((width / 32)) lanes"
      LP_NATIVE_VECTOR_WIDTH=$width ctest --preset all
    done ;;
  tsan)
    cmake --preset tsan >/dev/null
    cmake --build --preset tsan -j "$JOBS"
    ctest --preset tsan ;;
  fuzz) fuzz "$@" ;;
  fuzz-model) fuzz_build; fuzz_env "$MODEL_FUZZER" "$@" ;;
  fuzz-seeds)
    fuzz_build
    rm -f fuzz/corpus/*
    fuzz_env "$FUZZER" --write-seeds fuzz/corpus ;;
  install) build; cmake --install build ${1:+--prefix "$1"} ;;
  clean) rm -rf build build-asan build-tsan build-fuzz ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
