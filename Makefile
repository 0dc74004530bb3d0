# A thin layer over the CMake presets (CMakePresets.json).
#   make run     install missing Debian packages, build, run the benchmarks
#   make test    build and run the whole test suite (ctest)
#   make asan    the test suite under AddressSanitizer + UBSan
PACKAGES := cmake ninja-build g++ libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools \
            doctest-dev mesa-vulkan-drivers vulkan-validationlayers
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS ?= 2

.PHONY: deps build run test asan install clean
deps:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

build:
	cmake --preset default >/dev/null
	cmake --build --preset default -j $(JOBS)

run: deps build
	build/bench/vkdml_bench $(ARGS)

test: build
	ctest --preset default

asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan

install: build
	cmake --install build $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf build build-asan
