/*
 * The CPU backend: the Groth16 prover of lib/groth16 behind the engine's two-phase
 * interface. Placeholder until the prover lands: creating a CPU engine fails cleanly.
 */
#include "backend.h"
#include "error.h"

static int cpu_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    (void)cfg; (void)be; (void)devices;
    return err_set(CUZK_EDEVICE, "the CPU prover is not built into this library yet");
}

const backend_ops backend_cpu_ops = {
    .name = "cpu",
    .kind = CUZK_BACKEND_CPU,
    .create = cpu_create,
};
