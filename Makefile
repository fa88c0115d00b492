# Convenience front end over CMake.
#   make        check deps, build the CLI at build/gpuvm (Release, one build:
#               scripts/build-release.sh; GPUVM_PGO=1 make adds profile-guided
#               optimization, 2-4 % faster, at the cost of a second build)
#   make demo   build, then reproduce Karnagel Fig. 1 (experiments/karnagel_fig1.sh)
#   make check  install deps, build with ASan+UBSan in build-asan/ (-O2, line tables, asserts on),
#               run the unit, fuzz-replay and input/output cli tests (every test
#               but the fidelity, long and sim labels; smaller cases of the long
#               cli scripts); then, in a plain Release build (build-check/),
#               the rest at full size and the tests a plain build runs
#               otherwise (ctest label release); then the tests that run threads under
#               ThreadSanitizer (build-tsan/). Every pass runs and prints its time
#               left; a summary reports each (scripts/check.sh, docs/testing.md)
#   make check-quick  the unit and cli tests (ctest labels) in one Release build
#   make check-manifest  cli_validate replaying the whole validation manifest
#               (313 rows; make check replays a row per program and preset)
#   make bench  build, then print simulation rates (gpuvm bench)
#   make install  build, then install the CLI, libgpuvm.so and libgpuvm.a, the
#               headers (include/gpuvm/) and gpuvm.pc under PREFIX (/usr/local);
#               DESTDIR stages it (packaging)
#   make clean  remove build directories

JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake

.PHONY: all deps deps-install build demo check check-quick check-manifest bench install clean
PREFIX ?= /usr/local

all: build

deps:
	@bash scripts/install-deps.sh --check

deps-install:
	@bash scripts/install-deps.sh --install

build: deps-install
	CMAKE=$(CMAKE) bash scripts/build-release.sh $(JOBS)

demo: build
	bash experiments/karnagel_fig1.sh build/gpuvm

check: deps-install
	@JOBS=$(JOBS) CMAKE=$(CMAKE) bash scripts/check.sh full

check-quick: deps-install
	@JOBS=$(JOBS) CMAKE=$(CMAKE) bash scripts/check.sh quick

check-manifest: deps-install
	@JOBS=$(JOBS) CMAKE=$(CMAKE) bash scripts/check.sh manifest

bench: build
	build/gpuvm bench

# the build target links only the CLI; the libraries are linked here
install: build
	$(CMAKE) --build build -j $(JOBS) --target gpuvm_shared gpuvm_core
	DESTDIR=$(DESTDIR) $(CMAKE) --install build --prefix $(PREFIX)

clean:
	rm -rf build build-asan build-check build-tsan

# make fidelity: the seeds' experiments at FIDELITY sizes, one table (experiments/fidelity.sh)
.PHONY: fidelity
fidelity: build
	bash experiments/fidelity.sh build/gpuvm out/fidelity
