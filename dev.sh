#!/usr/bin/env bash
# A thin layer over the CMake presets (CMakePresets.json).
#   ./dev.sh run [bench args]   install missing Debian packages, build, run the benchmarks
#   ./dev.sh test               build and run the whole test suite (ctest)
#   ./dev.sh asan               the test suite under AddressSanitizer + UBSan
#   ./dev.sh fuzz [seconds]     the descriptor fuzzer on a copy of fuzz/corpus (default 3600 s)
#   ./dev.sh fuzz FILE...       run those inputs once (reproduce a crash file)
#   ./dev.sh fuzz-seeds         regenerate fuzz/corpus
#   ./dev.sh deps | build | install [prefix] | clean
set -euo pipefail
cd "$(dirname "$0")"
PACKAGES="cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools
          doctest-dev mesa-vulkan-drivers vulkan-validationlayers"
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
fuzz() {
  fuzz_build
  if [ $# -gt 0 ] && [ -f "$1" ]; then
    fuzz_env "$FUZZER" "$@"
    return
  fi
  local seconds=${1:-3600} corpus=build-fuzz/corpus artifacts=build-fuzz/artifacts
  mkdir -p $corpus $artifacts
  cp fuzz/corpus/* $corpus/  # seeds beside what earlier runs kept
  local status=0
  fuzz_env "$FUZZER" -max_total_time="$seconds" -max_len=1024 -timeout=60 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix=$artifacts/ $corpus || status=$?
  if [ $status -ne 0 ]; then
    echo "fuzz: FAILED (exit $status). Reproduce a finding with: ./dev.sh fuzz $artifacts/<crash-...>" >&2
    ls -1 $artifacts >&2 || true
  fi
  return $status
}

command=${1:-test}
shift || true
case "$command" in
  deps) deps ;;
  build) build ;;
  run) deps; build; build/bench/vkdml_bench "$@" ;;
  test) build; ctest --preset default ;;
  asan)
    cmake --preset asan >/dev/null
    cmake --build --preset asan -j "$JOBS"
    ctest --preset asan ;;
  fuzz) fuzz "$@" ;;
  fuzz-seeds)
    fuzz_build
    rm -f fuzz/corpus/*
    fuzz_env "$FUZZER" --write-seeds fuzz/corpus ;;
  install) build; cmake --install build ${1:+--prefix "$1"} ;;
  clean) rm -rf build build-asan build-fuzz ;;
  *) sed -n '2,10p' "$0"; exit 2 ;;
esac
