# libcuzk — build, test, install.  `make help` lists the targets.
#
# Layout: lib/ (C11 library, one folder per layer), kernels/ (CUDA, behind extern "C"
# headers), include/cuzk/ (public headers), test/ (cmocka tests test_*.c, script tests
# test_*.sh, GPU tests test/gpu/), bench/ (cuzk-bench), examples/ (cuzk CLI and hosts),
# bindings/ (Go module, Rust crates), supraseal/ (libcuzk-supraseal.so: supraseal C2's C entry).
# New source files are picked up by wildcard: adding a module needs no Makefile edit.

# One version, the header's CUZK_VERSION_* (zstd's way): the library's file name and the .pc
# follow it. Its MAJOR.MINOR is the newest node of lib/cuzk.map (test_exports.sh checks).
VERSION      := $(shell awk '/^.define CUZK_VERSION_(MAJOR|MINOR|PATCH) / {printf "%s%s", s, $$3; s = "."}' include/cuzk/cuzk.h)
SOMAJOR      := 0
BUILD        ?= build
# The build directory remembers its options; make is parallel by default (mk/config.mk).
include mk/config.mk
PREFIX       ?= /usr/local
DESTDIR      ?=
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
BINDIR       ?= $(PREFIX)/bin

CC           ?= cc
CXX          ?= c++
OPT          ?= -O3
CFLAGS_BASE  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -g $(OPT) -pthread
CPPFLAGS_LIB := -Iinclude -Ilib -Ikernels -DCUZK_BUILDING_LIBRARY
SANITIZE     ?=
ifneq ($(SANITIZE),)
  SANFLAGS   := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
endif
MARCH        ?=
CFLAGS       ?=
ALL_CFLAGS   := $(CFLAGS_BASE) $(MARCH) $(SANFLAGS) $(CFLAGS)
LDLIBS_BASE  := -lmimalloc -lpthread -lm

# ---- CUDA (mk/cuda.mk): CUZK_CUDA=0|1|auto, CUDA_ARCHS=auto|all|list ----
include mk/cuda.mk
LDLIBS       := $(LDLIBS_BASE) $(LDLIBS_CUDA)
# CUZK_CUDA=sim: the kernels' host-only .cu files by the host's C++ compiler
SIM_CXX_LINE  = $(CXX) -x c++ -std=c++17 -g $(OPT) $(MARCH) $(SANFLAGS) -pthread -fPIC -fvisibility=hidden $(CPPFLAGS_LIB)

# ---- sources ----
LIB_SRCS     := $(sort $(wildcard lib/*.c lib/*/*.c)) $(if $(filter sim,$(USE_CUDA)),$(sort $(wildcard test/simgpu/*.c)))
CU_SRCS      := $(if $(filter 1,$(USE_CUDA)),$(sort $(wildcard kernels/*.cu kernels/*/*.cu)),$(if $(filter sim,$(USE_CUDA)),$(SIM_CU_SRCS)))
# The kernels first: they take longest, so a parallel build starts them before the C files.
LIB_OBJS     := $(CU_SRCS:%.cu=$(BUILD)/obj/%.o) $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_SRCS    := $(sort $(wildcard test/test_*.c))
TEST_BINS    := $(TEST_SRCS:test/%.c=$(BUILD)/test/%)
TEST_SCRIPTS := $(sort $(wildcard test/test_*.sh))
GPU_TEST_SRCS:= $(sort $(wildcard test/gpu/test_*.c))
GPU_TEST_BINS:= $(GPU_TEST_SRCS:test/gpu/%.c=$(BUILD)/test/gpu/%)
CLI_SRCS     := $(sort $(wildcard examples/cli/*.c))
BENCH_SRCS   := $(sort $(wildcard bench/*.c))
# Trace views (busy %, Chrome trace, SVG, JSON Lines) and the per-user key cache, shared by cuzk
# (demo, trace) and cuzk-bench.
TRACE_SRCS   := $(sort $(wildcard examples/trace/*.c examples/common/*.c))
TESTLIB_SRCS := $(sort $(wildcard test/support/*.c))
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/obj/%.o)
TOOL_SRCS    := $(sort $(wildcard test/tools/*.c))
TOOL_BINS    := $(TOOL_SRCS:test/%.c=$(BUILD)/test/%)

SO_REAL      := $(BUILD)/lib/libcuzk.so.$(VERSION)
SO_MAJOR     := $(BUILD)/lib/libcuzk.so.$(SOMAJOR)
SO_LINK      := $(BUILD)/lib/libcuzk.so
STATIC       := $(BUILD)/lib/libcuzk.a
INTERNAL     := $(BUILD)/lib/libcuzk-internal.a
# libcuzk-supraseal: supraseal C2's C entry points on libcuzk (supraseal/, docs/supraseal.md)
SUPRA_SRCS   := $(sort $(wildcard supraseal/*.c))
SUPRA_OBJS   := $(SUPRA_SRCS:%.c=$(BUILD)/obj/%.o)
SUPRA_REAL   := $(BUILD)/lib/libcuzk-supraseal.so.$(VERSION)
SUPRA_MAJOR  := $(BUILD)/lib/libcuzk-supraseal.so.$(SOMAJOR)
SUPRA_LINK   := $(BUILD)/lib/libcuzk-supraseal.so
CLI          := $(BUILD)/bin/cuzk
BENCH        := $(BUILD)/bin/cuzk-bench
HELLO        := $(BUILD)/bin/hello

# Writes $(BUILD)/config.mk and the flag files the rules below depend on; prints the first line.
include mk/record.mk

.PHONY: all lib test test-gpu test-simgpu soak-gpu test-tsan fuzz fuzz-build bench demo install uninstall deps check-deps clean help abi-check abi-dump
.DEFAULT_GOAL := all

# (the simulated device's build has no bench: it measures the device, which is not there)
all: lib $(if $(CLI_SRCS),$(CLI)) $(if $(filter sim,$(USE_CUDA)),,$(if $(BENCH_SRCS),$(BENCH))) $(if $(wildcard examples/hello.c),$(HELLO))
lib: $(SO_LINK) $(STATIC) $(if $(SUPRA_SRCS),$(SUPRA_LINK))

help:
	@echo "make                 library (build/lib: libcuzk, libcuzk-supraseal), cuzk and cuzk-bench (build/bin); CUDA when nvcc is found"
	@echo "make test            every CPU test (installs missing dependencies first)"
	@echo "make test-gpu        GPU tests (skips cleanly without a GPU)"
	@echo "make soak-gpu MINUTES=10   the engine stress test on the GPU for that long (skips without a GPU);"
	@echo "                     one bench/RESULTS.md row per phase on stdout, appended to STRESS_OUT=file too"
	@echo "make fuzz            libFuzzer harnesses (clang, build-fuzz), FUZZ_SECONDS=60 each"
	@echo "make test-tsan       the engine's concurrency tests under ThreadSanitizer (build-tsan)"
	@echo "make test-simgpu     the CUDA backend's host code over a simulated device (build-simgpu; no GPU needed)"
	@echo "make demo            prove a backlog of partitions: busy %, stage times, a timeline ($(BUILD)/demo/timeline.svg)"
	@echo "make install PREFIX=/usr/local DESTDIR=   headers, libraries (libcuzk-supraseal too), cuzk.pc and cuzk-static.pc, cuzk and cuzk-bench"
	@echo "make abi-check       the exported ABI against abi/libcuzk.abi and abi/libcuzk-supraseal.abi (abidiff; new symbols need a new node)"
	@echo "make abi-dump        rewrite the baselines abi/*.abi (after adding a version node)"
	@echo "make deps            install system packages (root) or print the command"
	@echo "options (remembered per build directory in BUILD/config.mk; one job per CPU unless -jN):"
	@echo "  CUZK_CUDA=0|1|auto   CUDA_ARCHS=auto|all|'sm_90 sm_120'   OPT=-O3   SANITIZE=address,undefined   BUILD=dir"
	@echo "  CUDA_ARCHS=auto: the GPUs found here (+ PTX), or $(CUDA_ARCH_NOGPU) + PTX without a GPU; all: $(CUDA_ARCHS_ALL) + PTX"

$(BUILD)/obj/%.o: %.c $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(CPPFLAGS_LIB) -MMD -MP -c $< -o $@

# (CUZK_CUDA=sim: the host-only ones, by the host's C++ compiler)
$(BUILD)/obj/%.o: %.cu $(FLAGS_NVCC)
	@mkdir -p $(dir $@)
	$(if $(filter sim,$(USE_CUDA)),$(SIM_CXX_LINE),$(NVCC) $(NVCCFLAGS) $(NVCC_THREADS) $(GENCODE)) $(NVCC_FILE_FLAGS) -MMD -MP -c $< -o $@

# The MSM plan's host simulation is host code only, a test oracle (test_msm_sim): gcc -O1
# instead of -O3 compiles it in a third of the time (29 -> 10 CPU s, bench/RESULTS.md); the
# last -O given to nvcc is the one the host compiler gets.
$(BUILD)/obj/kernels/msm/msm_sim.o: NVCC_FILE_FLAGS := -O1

$(SO_REAL): $(LIB_OBJS) lib/cuzk.map $(FLAGS_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libcuzk.so.$(SOMAJOR) -Wl,--version-script=lib/cuzk.map \
	    -Wl,--no-undefined -o $@ $(LIB_OBJS) $(LDLIBS)

$(SO_MAJOR): $(SO_REAL)
	ln -sf libcuzk.so.$(VERSION) $@
$(SO_LINK): $(SO_MAJOR)
	ln -sf libcuzk.so.$(SOMAJOR) $@

# libcuzk-supraseal links libcuzk's own objects (not libcuzk.so): the proof conversion reuses
# lib/field's point decoding, which libcuzk.so does not export; its version script leaves only
# supraseal's five symbols global, so it carries a private copy of libcuzk and needs none.
$(SUPRA_REAL): $(SUPRA_OBJS) $(LIB_OBJS) supraseal/supraseal.map $(FLAGS_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libcuzk-supraseal.so.$(SOMAJOR) \
	    -Wl,--version-script=supraseal/supraseal.map -Wl,--no-undefined -o $@ $(SUPRA_OBJS) $(LIB_OBJS) $(LDLIBS)
$(SUPRA_MAJOR): $(SUPRA_REAL)
	ln -sf libcuzk-supraseal.so.$(VERSION) $@
$(SUPRA_LINK): $(SUPRA_MAJOR)
	ln -sf libcuzk-supraseal.so.$(SOMAJOR) $@

# The installed static library: one partially linked object whose only global definitions
# are the exported cuzk_ symbols (the version script's list), so a static host's namespace
# gets nothing else (the internals were hidden; hidden and other non-exported globals, C++
# template instances included, become local).
$(BUILD)/lib/cuzk.syms: lib/cuzk.map
	@mkdir -p $(dir $@)
	sed -n 's/^[[:space:]]*\(cuzk_[a-z0-9_]*\);.*/\1/p' $< | sort -u > $@
$(STATIC): $(LIB_OBJS) $(BUILD)/lib/cuzk.syms $(FLAGS_LINK)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(BUILD)/lib/libcuzk-prelinked.o $(LIB_OBJS)
	objcopy --localize-hidden --keep-global-symbols=$(BUILD)/lib/cuzk.syms $(BUILD)/lib/libcuzk-prelinked.o
	rm -f $@ && ar rcs $@ $(BUILD)/lib/libcuzk-prelinked.o && rm -f $(BUILD)/lib/libcuzk-prelinked.o

# Programs around the library (tests, tools, the CLI and the bench) link this archive of the
# plain objects instead, so they reach internals; it is never installed.
$(INTERNAL): $(LIB_OBJS) $(FLAGS_LINK)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIB_OBJS)

PROG_CFLAGS := $(ALL_CFLAGS) -Iinclude -Ilib -Ikernels -Itest $(if $(filter 1 sim,$(USE_CUDA)),-DCUZK_HAVE_CUDA=1) \
               $(if $(filter sim,$(USE_CUDA)),-DCUZK_SIMGPU=1)

# test_prove_alloc counts the library's own calls to the C heap (--wrap redirects the
# archive's references to malloc & co. to the test's counters).
$(BUILD)/test/test_prove_alloc: TEST_LDFLAGS := $(foreach f,malloc calloc realloc aligned_alloc posix_memalign,-Wl,--wrap=$(f))
# test_supraseal calls the five symbols through the built libcuzk-supraseal.so, as a host does.
$(BUILD)/test/test_supraseal: $(SUPRA_LINK)
$(BUILD)/test/test_supraseal: TEST_LDFLAGS := $(SUPRA_LINK) -Wl,-rpath,$(abspath $(BUILD)/lib)
# test_counts refuses any huge request to the C heap or mmap from the library (the same --wrap).
$(BUILD)/test/test_counts: TEST_LDFLAGS := $(foreach f,malloc calloc realloc aligned_alloc posix_memalign mmap,-Wl,--wrap=$(f))

# test/support: compiled once, linked into every test (not once per test binary); kept, not
# deleted as intermediates of the pattern rules below.
.SECONDARY: $(TESTLIB_OBJS)
$(BUILD)/obj/test/support/%.o: test/support/%.c $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/test/%: test/%.c $(INTERNAL) $(TESTLIB_OBJS) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB_OBJS) $(INTERNAL) -lcmocka $(LDLIBS) $(TEST_LDFLAGS)

# test/tools/*.c: helper programs for script tests (corpus emitters, oracle drivers).
$(BUILD)/test/tools/%: test/tools/%.c $(INTERNAL) $(TESTLIB_OBJS) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB_OBJS) $(INTERNAL) $(LDLIBS)

$(BUILD)/test/gpu/%: test/gpu/%.c $(INTERNAL) $(TESTLIB_OBJS) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB_OBJS) $(INTERNAL) -lcmocka $(LDLIBS)

$(CLI): $(CLI_SRCS) $(TRACE_SRCS) $(wildcard examples/cli/*.h examples/trace/*.h examples/common/*.h) $(INTERNAL) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Iexamples/trace -Iexamples/common -o $@ $(CLI_SRCS) $(TRACE_SRCS) $(INTERNAL) -lcjson $(LDLIBS)

# The bench links the test-only trivial backend (cuzk-bench engine) from test/support.
BENCH_TEST_OBJS := $(BUILD)/obj/test/support/backend_trivial.o
$(BENCH): $(BENCH_SRCS) $(BENCH_TEST_OBJS) $(TRACE_SRCS) bench/bench.h examples/trace/trace_view.h examples/common/user_cache.h $(INTERNAL) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Ibench -Iexamples/trace -Iexamples/common -o $@ $(BENCH_SRCS) $(BENCH_TEST_OBJS) $(TRACE_SRCS) $(INTERNAL) \
	    -lcjson $(LDLIBS)

# The smallest host: public header only, linked against the shared library.
$(HELLO): examples/hello.c $(SO_LINK)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -Wall -Wextra -O2 -Iinclude -o $@ $< -L$(BUILD)/lib -lcuzk -Wl,-rpath,'$$ORIGIN/../lib'

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- dependencies ----
DEB_PACKAGES := libmimalloc-dev libcmocka-dev libcjson-dev pkg-config nodejs npm golang-go abigail-tools valgrind
check-deps:
	@missing=""; \
	 test -f /usr/include/mimalloc.h || missing="$$missing mimalloc"; \
	 test -f /usr/include/cmocka.h   || missing="$$missing cmocka"; \
	 test -f /usr/include/cjson/cJSON.h || missing="$$missing cjson"; \
	 command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	 command -v node >/dev/null && command -v npm >/dev/null || missing="$$missing node"; \
	 if [ -n "$$missing" ]; then echo "missing:$$missing — running make deps"; $(MAKE) --no-print-directory deps; fi

# libmimalloc-dev: the library's working-memory arenas; libcmocka-dev: unit tests;
# libcjson-dev: `cuzk trace` reads a host's trace events (JSON Lines); pkg-config: the install test; nodejs/npm: the
# independent BLS12-381 oracles (@noble/curves, snarkjs) and circom used by the tests;
# golang-go: the Go binding's tests (bindings/go/cuzk, cgo); abigail-tools: abidw/abidiff for
# make abi-check; valgrind: test/test_valgrind.sh (a short soak under memcheck). (cargo/rustc for bindings/rust come with the CI image, not from apt.)
deps:
	@pkgs="$(DEB_PACKAGES)"; \
	 if command -v node >/dev/null && command -v npm >/dev/null; then \
	   pkgs=$$(echo $$pkgs | tr ' ' '\n' | grep -vxE 'nodejs|npm' | tr '\n' ' '); fi; \
	 if [ "$$(id -u)" = 0 ]; then \
	   export DEBIAN_FRONTEND=noninteractive; \
	   apt-get update -qq && apt-get install -y -qq --no-install-recommends $$pkgs; \
	 else \
	   echo "make deps needs root. Run:"; \
	   echo "  sudo apt-get update && sudo apt-get install -y $$pkgs"; exit 1; \
	 fi

# ---- tests ----
# Tests run side by side, one per CPU (make -jN: N; TEST_JOBS=N says it for the tests alone).
TEST_JOBS_SH = $${TEST_JOBS:-$$(echo " $$MAKEFLAGS" | sed -n 's/.* -j\([0-9][0-9]*\).*/\1/p' | grep . || echo $(NPROC))}
test: check-deps
	@$(MAKE) --no-print-directory all $(TEST_BINS) $(TOOL_BINS)
	@TEST_JOBS=$(TEST_JOBS_SH) BUILD=$(BUILD) USE_CUDA=$(USE_CUDA) SANITIZE=$(SANITIZE) \
	    test/run-tests.sh $(TEST_BINS) $(TEST_SCRIPTS)

test-gpu: check-deps
	@if [ "$(USE_CUDA)" != 1 ]; then echo "test-gpu: SKIP (built without CUDA: nvcc not found or CUZK_CUDA=0)"; \
	     echo "0 passed, 0 failed"; exit 0; fi
	@$(MAKE) --no-print-directory all $(GPU_TEST_BINS) $(TOOL_BINS)
	@BUILD=$(BUILD) USE_CUDA=$(USE_CUDA) test/run-tests.sh $(GPU_TEST_BINS) $(sort $(wildcard test/gpu/test_*.sh))

# The engine stress test (test/gpu/test_gpu_stress.c, test/support/stress.h) for MINUTES
# minutes in all, spread over its phases (whole GPU, a budget where the bulk key streams, the
# smallest budget for its three keys, faults under load); its summary rows go to stdout and,
# with STRESS_OUT=file, are appended to that file. Without a GPU (exit 77): a skip.
MINUTES ?= 10
soak-gpu: check-deps
	@if [ "$(USE_CUDA)" != 1 ]; then echo "soak-gpu: SKIP (built without CUDA: nvcc not found or CUZK_CUDA=0)"; exit 0; fi; \
	 $(MAKE) --no-print-directory $(BUILD)/test/gpu/test_gpu_stress || exit 1; \
	 CUZK_STRESS_TOTAL_SECONDS=$$(( $(MINUTES) * 60 )) $(BUILD)/test/gpu/test_gpu_stress; rc=$$?; \
	 if [ $$rc = 77 ]; then echo "soak-gpu: SKIP (no CUDA device)"; exit 0; fi; exit $$rc

# The CUDA backend's host code — placement, worker slots, streamed bases and systems, urgent
# pacing, cancels, key churn, the engine stress test — over the simulated device
# (test/simgpu/simgpu.h: the kernels layer run on the host, device memory counted), so that it
# runs here and in CI without a GPU: a build of its own in build-simgpu (CUZK_CUDA=sim), the GPU
# tests that drive the engine through the public API.
# SIM_BUILD: its directory (a sanitized one beside it: SIM_BUILD=build-simgpu-tsan SANITIZE=thread).
# The kernels' own GPU tests run too, as checks of the simulation against the CPU. Unsanitized,
# the engine-level GPU tests and the H step's (their GPU-sized cases skip: GPU_TEST_DEVICE_ONLY);
# under a sanitizer (~10x slower) the engine, the stress test and the quick kernel checks.
# test_gpu_field (device arithmetic) has no simulation; test_gpu_msm runs by hand (its 2^20 to
# 2^24 cases take many minutes of host arithmetic and ~140 GB: CUZK_SIMGPU_MEM_MIB=143000).
SIM_TESTS_SANITIZED := test_gpu_engine test_gpu_stress test_gpu_prep test_gpu_spmv test_gpu_ntt
SIM_TESTS := $(SIM_TESTS_SANITIZED) $(if $(SANITIZE),,test_gpu_h test_gpu_mixed test_gpu_circuits test_gpu_placement \
                                                     test_gpu_witness)
SIM_BUILD ?= build-simgpu
test-simgpu: check-deps
	@$(MAKE) --no-print-directory BUILD=$(SIM_BUILD) CUZK_CUDA=sim $(SIM_TESTS:%=$(SIM_BUILD)/test/gpu/%)
	@BUILD=$(SIM_BUILD) USE_CUDA=sim SANITIZE=$(SANITIZE) TEST_JOBS=$(TEST_JOBS_SH) \
	    test/run-tests.sh $(SIM_TESTS:%=$(SIM_BUILD)/test/gpu/%)

# The engine's concurrency tests (ring, tracker + 8x8 stress, life cycle, budget, CPU proofs, soak, the CUDA slot pool, libcuzk-supraseal's concurrent batches, the
# thread pool's two lanes) in reduced sizes under ThreadSanitizer: a separate CPU-only build in build-tsan.
TSAN_TESTS := test_ring test_tracker test_tracker_race test_engine test_budget test_engine_cpu test_soak test_stress_cpu test_threadpool test_slot_pool test_supraseal
test-tsan: check-deps
	@$(MAKE) --no-print-directory BUILD=build-tsan CUZK_CUDA=0 SANITIZE=thread OPT=-O1 \
	    $(TSAN_TESTS:%=build-tsan/test/%)
	@CUZK_TEST_QUICK=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" BUILD=build-tsan \
	    TEST_JOBS=$(TEST_JOBS_SH) SANITIZE=thread test/run-tests.sh $(TSAN_TESTS:%=build-tsan/test/%)

# libFuzzer harnesses (test/fuzz/fuzz_*.c) for every decoder of outside bytes: clang with
# ASan+UBSan+fuzzer over a separate CPU-only build of the library in build-fuzz; each target
# runs FUZZ_SECONDS on its seed corpus (test/fuzz/corpus/<target>/); any crash fails.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRCS    := $(sort $(wildcard test/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRCS:test/fuzz/fuzz_%.c=%)
fuzz-build:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) CUZK_CUDA=0 SANITIZE=address,undefined \
	    OPT=-O1 CFLAGS="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" \
	    $(FUZZ_NAMES:%=build-fuzz/fuzz/fuzz_%)
fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh build-fuzz $(FUZZ_NAMES)

$(BUILD)/fuzz/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/fuzz_file.h $(INTERNAL) $(FLAGS_CC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fsanitize=fuzzer $< -o $@ $(INTERNAL) $(LDLIBS)

bench: $(BENCH)

# Only what the demo runs is built first: the first proof comes sooner on a fresh clone.
demo: check-deps
	@$(MAKE) --no-print-directory $(CLI)
	@$(CLI) demo --cache $(BUILD)/demo

# ---- ABI guard (abi/check.sh): incompatible changes fail; additions need a new version node
# in lib/cuzk.map and a CHANGELOG entry. abi-dump refreshes the committed baseline.
# libcuzk-supraseal.so has its own baseline, checked the same way against its header.
ABI_BASELINE ?= abi/libcuzk.abi
SUPRA_ABI_BASELINE ?= abi/libcuzk-supraseal.abi
abi-check: lib
	@abi/check.sh check $(SO_REAL) $(ABI_BASELINE)
	@abi/check.sh check $(SUPRA_REAL) $(SUPRA_ABI_BASELINE) supraseal
abi-dump: lib
	@abi/check.sh dump $(SO_REAL) $(ABI_BASELINE)
	@abi/check.sh dump $(SUPRA_REAL) $(SUPRA_ABI_BASELINE) supraseal

# ---- install ----
# cuzk.pc links libcuzk.so (-lcuzk; with --static it adds what a link of archives only, cc
# -static, needs); cuzk-static.pc links libcuzk.a by its path, for a static libcuzk beside the
# shared one (cuzk-static.pc.in says why -lcuzk cannot).
install: lib $(CLI) $(BENCH)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/cuzk $(DESTDIR)$(BINDIR)
	install -m 755 $(CLI) $(BENCH) $(DESTDIR)$(BINDIR)/
	install -m 644 include/cuzk/*.h $(DESTDIR)$(INCLUDEDIR)/cuzk/
	install -m 755 $(SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf libcuzk.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcuzk.so.$(SOMAJOR)
	ln -sf libcuzk.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libcuzk.so
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SUPRA_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf libcuzk-supraseal.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcuzk-supraseal.so.$(SOMAJOR)
	ln -sf libcuzk-supraseal.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libcuzk-supraseal.so
	install -m 644 supraseal/supraseal_c2.h $(DESTDIR)$(INCLUDEDIR)/cuzk/
	for pc in cuzk cuzk-static; do \
	  sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(LIBDIR))|g' \
	      -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))|g' \
	      -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS_PRIVATE@|$(LDLIBS)|g' $$pc.pc.in \
	      > $(DESTDIR)$(LIBDIR)/pkgconfig/$$pc.pc || exit 1; \
	done

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/cuzk $(DESTDIR)$(LIBDIR)/libcuzk.* $(DESTDIR)$(LIBDIR)/libcuzk-supraseal.* $(DESTDIR)$(LIBDIR)/pkgconfig/cuzk.pc \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/cuzk-static.pc
	rm -f $(DESTDIR)$(BINDIR)/cuzk $(DESTDIR)$(BINDIR)/cuzk-bench

clean:
	rm -rf $(BUILD)
