# Convenience front end over CMake.
#   make        check deps, build the CLI at build/gpuvm (Release, profile-guided:
#               scripts/build-release.sh; GPUVM_PGO=0 make skips the profile)
#   make demo   build, then reproduce Karnagel Fig. 1 (experiments/karnagel_fig1.sh)
#   make check  install deps, build with ASan+UBSan in build-asan/ (-O2 -g, asserts on),
#               run all tests; then again in a plain Release build (build-check/)
#   make bench  build, then print simulation rates (gpuvm bench)
#   make clean  remove build directories

JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake

.PHONY: all deps deps-install build demo check bench clean

all: build

deps:
	@bash scripts/install-deps.sh --check

deps-install:
	@bash scripts/install-deps.sh --install

build: deps-install
	CMAKE=$(CMAKE) bash scripts/build-release.sh $(JOBS)

demo: build
	bash experiments/karnagel_fig1.sh build/gpuvm

check: export ASAN_OPTIONS = detect_leaks=1
check: export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
check: deps-install
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DGPUVM_SANITIZE=ON
	$(CMAKE) --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j2
	# again without sanitizers: the SIMT executor's shared run stack (the
	# path users run) exists only in builds without AddressSanitizer
	$(CMAKE) -S . -B build-check -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build build-check -j $(JOBS)
	cd build-check && ctest --output-on-failure -j2

bench: build
	build/gpuvm bench

clean:
	rm -rf build build-asan build-check

# make fidelity: the seeds' experiments at FIDELITY sizes, one table (experiments/fidelity.sh)
.PHONY: fidelity
fidelity: build
	bash experiments/fidelity.sh build/gpuvm out/fidelity
