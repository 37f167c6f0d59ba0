/*
 * Shared by the simulated NTT sources (sim_ntt.c, sim_ntt_h.c): the tables a device keeps for
 * its transforms, charged to its memory as kernels/ntt/ntt_tables.cu allocates them.
 */
#ifndef CUZK_TEST_SIM_NTT_H
#define CUZK_TEST_SIM_NTT_H

#define SIM_NTT_MAX_LOG 28 /* kernels/ntt/ntt_internal.cuh's NTT_MAX_LOG */

/* The current device's tables for 2^log_n (1 <= log_n <= SIM_NTT_MAX_LOG): charged on first use
 * per device, and per device and size, as the device builds them; CUZK_OK, or CUZK_EDEVICE
 * when the device has not the memory (a first call that fails is retried by the next). */
int sim_ntt_tables(unsigned log_n);

#endif
