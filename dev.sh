#!/usr/bin/env bash
# A thin layer over the CMake presets (CMakePresets.json).
#   ./dev.sh run [bench args]   install missing Debian packages, build, run the benchmarks
#   ./dev.sh test [--large]     build and run the test suite (ctest); the cases named
#                               "[large]" (big tensors, minutes on lavapipe) only with --large
#   ./dev.sh asan               the test suite under AddressSanitizer + UBSan
#   ./dev.sh tsan               the thread tests under ThreadSanitizer
#   ./dev.sh subgroups          on lavapipe with subgroups of 1, 4 and 64 lanes, the tests they can change
#   ./dev.sh mesa25 [CMD...]    the suite less MESA25_SKIP (or CMD) on Mesa 25's lavapipe, unpacked from
#                               bookworm-backports into build/mesa25 beside the system's Mesa
#   ./dev.sh fuzz [seconds]     the descriptor fuzzer on a copy of fuzz/corpus (default 3600 s),
#                               then the model fuzzer (vkdml-dispatch's reader) a third as long
#   ./dev.sh fuzz FILE...       run those inputs once through the descriptor fuzzer
#   ./dev.sh fuzz-model FILE... run those inputs once through the model fuzzer
#   ./dev.sh fuzz-seeds         regenerate fuzz/corpus
#   ./dev.sh deps | build | install [prefix] | clean
set -euo pipefail
cd "$(dirname "$0")"
PACKAGES="cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools
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

# Mesa 25's lavapipe beside the system's: bookworm-backports' mesa-vulkan-drivers
# (built on bookworm's LLVM 15), and each dependency whose installed version is
# older than it asks for, fetched by apt from a sources list of its own (the
# system's apt configuration and packages untouched) and unpacked, never
# installed, into build/mesa25/root; an ICD file names its driver by path.
MESA25=$PWD/build/mesa25
mesa25_fetch() {
  [ -f "$MESA25/lvp_icd.json" ] && return
  local apt="-oAPT::Architecture=amd64 -oDir::State::Lists=$MESA25/lists -oDir::Cache=$MESA25/cache
             -oDir::Etc::SourceList=$MESA25/sources.list -oDir::Etc::SourceParts=/nonexistent"
  rm -rf "$MESA25"
  mkdir -p "$MESA25/lists/partial" "$MESA25/cache" "$MESA25/debs"
  echo "deb http://deb.debian.org/debian bookworm-backports main" >"$MESA25/sources.list"
  fail() { echo "mesa25: $1 (bookworm-backports, deb.debian.org)" >&2; rm -rf "$MESA25"; return 1; }
  apt-get $apt -q --error-on=any update || { fail "apt-get update failed"; return 1; }
  (cd "$MESA25/debs" && apt-get $apt -q download mesa-vulkan-drivers/bookworm-backports) ||
    { fail "downloading mesa-vulkan-drivers failed"; return 1; }
  # "name (>= version)" entries; alternatives ("a | b") are the old package's
  # python3, which this one does not ask for.
  local wanted="" entry name op version installed
  while IFS= read -r entry; do
    [[ $entry == *"|"* ]] && continue
    name=${entry%% *} op="" version=""
    if [[ $entry =~ \((.+)\ (.+)\) ]]; then op=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}; fi
    installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
    if [ -z "$installed" ] || { [ -n "$op" ] && ! dpkg --compare-versions "$installed" "$op" "$version"; }; then
      wanted="$wanted $name/bookworm-backports"
    fi
  done < <(dpkg-deb -f "$MESA25"/debs/mesa-vulkan-drivers_*.deb Depends | tr ',' '\n' | sed 's/^ *//')
  if [ -n "$wanted" ]; then
    echo "mesa25: dependencies newer than the installed ones:$wanted"
    (cd "$MESA25/debs" && apt-get $apt -q download $wanted) || { fail "downloading$wanted failed"; return 1; }
  fi
  for deb in "$MESA25"/debs/*.deb; do dpkg-deb -x "$deb" "$MESA25/root"; done
  local lib=$MESA25/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
  [ -f "$lib" ] || { fail "no libvulkan_lvp.so in the package"; return 1; }
  dpkg-deb -f "$MESA25"/debs/mesa-vulkan-drivers_*.deb Version >"$MESA25/version"
  sed "s|\"libvulkan_lvp.so\"|\"$lib\"|" "$MESA25/root/usr/share/vulkan/icd.d/lvp_icd.json" >"$MESA25/lvp_icd.json"
}
# Runs "$@" with Mesa 25's lavapipe as the only Vulkan driver; the unpacked
# libraries (libdrm) first on the library path.
mesa25_env() {
  VK_DRIVER_FILES=$MESA25/lvp_icd.json VK_ICD_FILENAMES=$MESA25/lvp_icd.json \
    LD_LIBRARY_PATH=$MESA25/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"
}

# What the other lavapipe runs leave out (docs/testing.md has the reasons and
# the times; CI holds 90 minutes on a 2-core machine, and lavapipe compiles
# each geometry's pipeline anew):
# - the emulated cooperative-matrix kernel's reruns of every convolution case
#   at each packing (0, b, ab, nhwc), 60% of a whole suite's time;
PACKING_RERUNS='^coopmat-emulated-packing-'
# - the same kernel's run with a K split's chunks zeroing the output
#   ("split-zeros: convolution_integer: ...", one lavapipe thread);
SPLIT_ZEROS_RERUNS='^split-zeros:'
# - the [large] cases of the forced-path reruns ("dot:convolution_integer:
#   ... [large]"); Auto's ("convolution_integer: ... [large]") stay.
FORCED_LARGE='^[a-z0-9-]+:convolution_integer: .*\[large\]'
# Mesa 25 also leaves out the dot path's reruns (Auto takes that path on
# lavapipe), the tiled dot kernel (Auto takes it on GPUs only), the portable
# path's reruns and the emulated kernel's other fragment shapes.
MESA25_SKIP="$PACKING_RERUNS|$SPLIT_ZEROS_RERUNS|$FORCED_LARGE|^(dot|dot-tiled|portable|coopmat_shapes):"
# What the subgroup size can change: the emulated cooperative-matrix kernel
# (the only one with subgroup operations; Auto never takes it, and the NV and
# KHR paths are skipped on lavapipe), the convolution's plans, shapes and path
# options, the loop budgets (lavapipe counts a subgroup's loop passes) and the
# device's reported properties; without the [large] cases.
SUBGROUP_TESTS='^(coopmat-emulated|convolution plan|coopmat_shapes|loop_budget|device|feature):|^convolution_integer: paths'

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
    ctest --preset asan ;;  # the preset leaves out all four packing reruns (docs/testing.md)
  subgroups)
    # lavapipe's subgroup is its vector width / 32 (8 lanes by default): 1
    # lane (where the emulated kernel refuses), 4 (the fewest it takes) and 64
    # (AMD's wave64), on SUBGROUP_TESTS.
    build
    for width in 32 128 2048; do
      echo "== LP_NATIVE_VECTOR_WIDTH=$width: subgroups of $((width / 32)) lanes"
      LP_NATIVE_VECTOR_WIDTH=$width ctest --preset default -R "$SUBGROUP_TESTS"
    done ;;
  mesa25)
    mesa25_fetch
    build
    # The device the tests take is the unpacked driver, not the system's.
    line=$(mesa25_env build/bench/vkdml_bench --filter "latency: flip, 4 KiB" --reps 1 --warmup 0 | grep '^device:')
    echo "mesa25: $line"
    [[ $line == *"Mesa $(cat "$MESA25/version")"* ]] || { echo "mesa25: not Mesa $(cat "$MESA25/version")" >&2; exit 1; }
    if [ $# -gt 0 ]; then mesa25_env "$@"; else mesa25_env ctest --preset all -E "$MESA25_SKIP"; fi ;;
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
  *) sed -n '2,16p' "$0"; exit 2 ;;
esac
