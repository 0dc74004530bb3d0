#!/usr/bin/env bash
# A thin layer over the CMake presets (CMakePresets.json).
#   ./dev.sh run [bench args]   install missing Debian packages, build, run the benchmarks
#   ./dev.sh test               build and run the whole test suite (ctest)
#   ./dev.sh asan               the test suite under AddressSanitizer + UBSan
#   ./dev.sh tsan               the thread tests under ThreadSanitizer
#   ./dev.sh deps | build | install [prefix] | clean
set -euo pipefail
cd "$(dirname "$0")"
PACKAGES="cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools
          doctest-dev nlohmann-json3-dev mesa-vulkan-drivers vulkan-validationlayers"
JOBS=${JOBS:-$(nproc)}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

deps() {
  local missing=""
  for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
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
  tsan)
    cmake --preset tsan >/dev/null
    cmake --build --preset tsan -j "$JOBS"
    ctest --preset tsan ;;
  install) build; cmake --install build ${1:+--prefix "$1"} ;;
  clean) rm -rf build build-asan build-tsan ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
esac
