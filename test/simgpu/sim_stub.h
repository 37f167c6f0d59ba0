/* A kernels-layer entry the simulated device does not run yet: a clear error, never a wrong
 * result. */
#ifndef CUZK_TEST_SIM_STUB_H
#define CUZK_TEST_SIM_STUB_H
#include "cuzk/cuzk.h"
#include "error.h"
#define SIM_NOT_YET(name) err_set(CUZK_EDEVICE, "simgpu: %s is not simulated yet", name)
#endif
