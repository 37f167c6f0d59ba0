# The build directory's configuration, read before the Makefile sets any default.
#
# - Parallel by default: a top-level make runs one job per CPU; `make -jN` (or -j1) overrides.
#   Sub-makes share the top level's job server, so nothing is added below level 0.
# - $(BUILD)/config.mk remembers CUZK_CUDA, CUDA_ARCHS, OPT and SANITIZE as last given for
#   that directory: a later make there (install, test, demo) uses them unless they are given
#   again, on the command line or in the environment, which then replaces what is remembered.
#   mk/record.mk writes the file once every option is resolved.

NPROC := $(shell nproc 2>/dev/null || echo 1)
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(NPROC)
endif

CONFIG_FILE := $(BUILD)/config.mk
CONFIG_VARS := CUZK_CUDA CUDA_ARCHS OPT SANITIZE
-include $(CONFIG_FILE)

# $(1) from the build directory's record, unless the caller gave it.
define config_recall
ifeq ($$(filter command line environment override,$$(origin $(1))),)
  ifneq ($$(origin saved_$(1)),undefined)
    $(1) := $$(saved_$(1))
    CONFIG_RECALLED += $(1)
  endif
endif
endef
$(foreach v,$(CONFIG_VARS),$(eval $(call config_recall,$(v))))
