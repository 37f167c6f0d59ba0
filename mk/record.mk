# Records the build directory's configuration, once every option is resolved, and says what is
# being built (the build's first line).
#
# $(BUILD)/config.mk: the options mk/config.mk reads back next time.
# $(BUILD)/flags/{cc,nvcc,link}: the command lines objects and libraries are made with. Each is
# rewritten only when its line changes and every object depends on its own, so a changed option
# rebuilds exactly what it changes, and objects of two configurations are never linked together
# (the object list is part of the link line: the kernels drop out when CUDA is turned off).

define newline


endef
# $(call differs,A,B): non-empty when A and B differ (whitespace aside)
differs = $(subst x$(strip $(1)),,x$(strip $(2)))$(subst x$(strip $(2)),,x$(strip $(1)))
# $(call record,FILE,TEXT): FILE holds TEXT afterwards; untouched (same mtime) when it already did
record  = $(if $(call differs,$(file <$(1)),$(2)),$(shell mkdir -p $(dir $(1)))$(file >$(1),$(2)))

define config_text
saved_CUZK_CUDA := $(CUZK_CUDA)
saved_CUDA_ARCHS := $(CUDA_TARGETS)
saved_CUDA_ARCHS_WHY := $(CUDA_ARCHS_WHY)
saved_OPT := $(OPT)
saved_SANITIZE := $(SANITIZE)
endef
FLAGS_CC   := $(BUILD)/flags/cc
FLAGS_NVCC := $(BUILD)/flags/nvcc
FLAGS_LINK := $(BUILD)/flags/link
# Goals that build nothing (help, clean, deps ...) leave the directory alone.
QUIET_GOALS := help clean deps check-deps uninstall
BUILDING    := $(filter-out $(QUIET_GOALS),$(or $(MAKECMDGOALS),all))
ifneq ($(BUILDING),)
  $(call record,$(CONFIG_FILE),$(config_text))
  $(call record,$(FLAGS_CC),$(CC) $(ALL_CFLAGS) $(CPPFLAGS_LIB))
  $(call record,$(FLAGS_NVCC),$(if $(filter sim,$(USE_CUDA)),$(SIM_CXX_LINE),$(NVCC) $(NVCCFLAGS) $(NVCC_THREADS) $(GENCODE)))
  $(call record,$(FLAGS_LINK),$(CC) $(LDLIBS) $(LIB_OBJS))
endif

ifeq ($(USE_CUDA),1)
  BUILD_WHAT := CUDA kernels for $(CUDA_TARGETS)$(if $(CUDA_PTX), + PTX compute_$(CUDA_PTX:sm_%=%)) ($(CUDA_ARCHS_WHY))
else ifeq ($(USE_CUDA),sim)
  BUILD_WHAT := the simulated device (CUZK_CUDA=sim: the CUDA backend over kernels run on the host; tests only)
else ifeq ($(CUZK_CUDA),0)
  BUILD_WHAT := CPU only (CUZK_CUDA=0)
else
  BUILD_WHAT := CPU only (no nvcc at $(NVCC); set CUDA_HOME or NVCC to build the CUDA kernels)
endif
ifeq ($(MAKELEVEL),0)
  ifneq ($(BUILDING),)
    $(info libcuzk $(BUILD)/: $(BUILD_WHAT); OPT=$(OPT)$(if $(SANITIZE), SANITIZE=$(SANITIZE)); \
      -j$(NPROC) unless -jN is given$(if $(CONFIG_RECALLED),; remembered in $(CONFIG_FILE): $(strip $(foreach v,$(CONFIG_RECALLED),$(if $(strip $($(v))),$(v)=$(strip $($(v))))))))
  endif
endif
