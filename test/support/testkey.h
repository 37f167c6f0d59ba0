/*
 * A test key for the engine tests: a synthetic PoRep-shaped circuit (lib/groth16/synth.h),
 * its test-only setup, the params written to a file the engine can load, and the serialized
 * verifying key for cuzk_verify. One place for what every engine test's setup needs.
 */
#ifndef CUZK_TEST_TESTKEY_H
#define CUZK_TEST_TESTKEY_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/groth16.h"
#include "groth16/synth.h"

typedef struct test_key {
    synth_cfg scfg;          /* the circuit: synth_partition(&k->scfg, ...) makes witnesses */
    groth16_params *pk;      /* the proving key in memory                                   */
    char path[96];           /* the same key as a .params file, /tmp/cuzk-<tag>-<pid>[-i]   */
    uint8_t *vk;             /* the serialized verifying key                                */
    size_t vk_len;
} test_key;

/* Sets up the circuit cfg (its seed doubles as the setup's toxic-waste seed) and writes the
 * key; index tells several keys of one test apart (-1: none). CUZK_OK or the failing call's
 * code, with nothing left behind. */
int test_key_make(test_key *k, const synth_cfg *cfg, const char *tag, int index);
/* Frees everything and removes the file. Idempotent on a zeroed or freed key. */
void test_key_free(test_key *k);

#endif
