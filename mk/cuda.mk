# CUDA: whether the kernels are built, and for which GPUs.
#
# CUZK_CUDA=auto (the default) builds them when nvcc is found, 0 never, 1 insists on nvcc;
# sim runs them on the host instead (test/simgpu: a test build of its own, make test-simgpu).
# CUDA_ARCHS:
#   auto (the default): the architectures of the GPUs in this machine, plus PTX of the newest
#        (so a later GPU still runs it); with no GPU, CUDA_ARCH_NOGPU and its PTX only.
#   all: every architecture libcuzk supports plus PTX of the newest, a fat binary for packaging.
#   a list ("sm_90 sm_120"): those, plus PTX of the last one (CUDA_PTX= to change or drop it).
# Every architecture costs minutes of nvcc (kernels/msm/ is most of it), hence one by default.
# mk/record.mk remembers the resolved list in $(BUILD)/config.mk: detection runs once per build
# directory (CUDA_ARCHS=auto again to redo it).

CUDA_HOME    ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
NVCC         ?= $(CUDA_HOME)/bin/nvcc
HAVE_NVCC    := $(shell test -x $(NVCC) && echo 1)
CUZK_CUDA    ?= auto
USE_CUDA     :=
ifeq ($(CUZK_CUDA),1)
  ifneq ($(HAVE_NVCC),1)
    $(error CUZK_CUDA=1 but nvcc was not found at $(NVCC); install the CUDA toolkit or set CUDA_HOME/NVCC)
  endif
  USE_CUDA := 1
else ifeq ($(CUZK_CUDA),auto)
  USE_CUDA := $(HAVE_NVCC)
else ifeq ($(CUZK_CUDA),sim)
  # the simulated device (test/simgpu/simgpu.h): the CUDA backend's host code over the kernels
  # layer run on the host, for tests without a GPU (make test-simgpu); no nvcc, no CUDA runtime
  USE_CUDA := sim
else ifneq ($(CUZK_CUDA),0)
  $(error CUZK_CUDA=$(CUZK_CUDA): use 0, 1, auto or sim)
endif

# sm_80 with its PTX: native code for every Ampere/Ada part (sm_8x runs sm_80 code), and PTX
# that the driver compiles once, at first use, for Hopper and Blackwell.
CUDA_ARCHS_ALL  := sm_80 sm_86 sm_89 sm_90 sm_120
CUDA_ARCH_NOGPU := sm_80
CUDA_ARCHS      ?= auto
# CUDA_TARGETS: the resolved list (CUDA_ARCHS may be a command-line variable, which make does
# not let the makefile reassign)
CUDA_TARGETS    := $(strip $(CUDA_ARCHS))
CUDA_ARCHS_WHY  := $(if $(filter CUDA_ARCHS,$(CONFIG_RECALLED)),$(saved_CUDA_ARCHS_WHY),CUDA_ARCHS as given)
ifeq ($(USE_CUDA),1)
  ifeq ($(CUDA_TARGETS),auto)
    # compute capabilities as "90", one per line: nvidia-smi, else the toolkit's own query
    gpu_caps := $(shell { nvidia-smi --query-gpu=compute_cap --format=csv,noheader || \
                          $(CUDA_HOME)/bin/__nvcc_device_query | tr , '\n'; } 2>/dev/null | tr -d '. ' | \
                        grep -E '^[0-9]+$$' | sort -un)
    ifneq ($(gpu_caps),)
      CUDA_TARGETS   := $(addprefix sm_,$(gpu_caps))
      CUDA_ARCHS_WHY := the GPUs found in this machine
    else
      CUDA_TARGETS   := $(CUDA_ARCH_NOGPU)
      CUDA_ARCHS_WHY := no GPU found here, so one architecture; CUDA_ARCHS=all or a list for more
    endif
  else ifeq ($(CUDA_TARGETS),all)
    CUDA_TARGETS   := $(CUDA_ARCHS_ALL)
    CUDA_ARCHS_WHY := CUDA_ARCHS=all
  endif
endif
comma        := ,
CUDA_PTX     ?= $(lastword $(CUDA_TARGETS))
GENCODE      := $(foreach a,$(CUDA_TARGETS),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
                $(if $(CUDA_PTX),-gencode arch=compute_$(CUDA_PTX:sm_%=%)$(comma)code=compute_$(CUDA_PTX:sm_%=%))
# Several architectures: nvcc compiles them side by side (the build's longest file is then
# one architecture long, not several, where the CPUs are there).
NVCC_THREADS := $(if $(word 2,$(CUDA_TARGETS)),--threads 0)
# -fno-gnu-unique: template statics (CUB, libcu++) as plain weak symbols, not STB_GNU_UNIQUE,
# which objcopy cannot make local in libcuzk.a (they are hidden anyway).
NVCCFLAGS    ?= -O3 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden,-fno-gnu-unique -Iinclude -Ilib -Ikernels \
                -DCUZK_BUILDING_LIBRARY --expt-relaxed-constexpr
ifeq ($(USE_CUDA),1)
  CPPFLAGS_LIB += -DCUZK_HAVE_CUDA=1 -I$(CUDA_HOME)/include
  LDLIBS_CUDA  := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif
# The simulated device's sources: the kernels' host-only files (the MSM plan's host executors,
# the placement's scratch estimate) compiled by the host's C++ compiler, and test/simgpu.
SIM_CU_SRCS  := kernels/msm/msm_host.cu kernels/msm/msm_sim.cu
ifeq ($(USE_CUDA),sim)
  CPPFLAGS_LIB += -DCUZK_HAVE_CUDA=1 -DCUZK_SIMGPU=1
  LDLIBS_CUDA  := -lstdc++
endif
