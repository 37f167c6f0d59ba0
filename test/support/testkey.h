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

/* One proof of a fresh witness (r, s from seed) and its public inputs (ONE excluded, canonical,
 * at most max_pub of them; *npub receives the count). */
int test_key_proof(const test_key *k, const uint8_t seed[32], uint8_t proof[192], cuzk_fr *pub,
                   size_t max_pub, size_t *npub);
/* The key's circuit and a satisfying witness as circom files: <dir>/c.r1cs and <dir>/c.wtns
 * (dir must exist; paths of at most 127 bytes). */
int test_key_circom_files(const test_key *k, const char *dir, char r1cs_path[128], char wtns_path[128]);

/* What most engine tests' setup does: test_seed() (printed), a random circuit seed, a circuit
 * of `constraints` (synth_cfg_default) and test_key_make(k, &cfg, tag, -1). */
int test_key_random(test_key *k, uint64_t constraints, const char *tag);

/* A test_key_random key and what the tests of every public call use with it: one proof of a
 * fresh witness with its public inputs, and the circuit with a satisfying witness as circom
 * files in a fresh directory /tmp/cuzk-<tag>-<pid>/ (the test may write more there). */
typedef struct test_fixture {
    test_key key;
    uint8_t proof[192];
    cuzk_fr pub[64];             /* pub[0 .. npub) are the proof's inputs; the rest never read */
    size_t npub;
    char dir[64], r1cs_path[128], wtns_path[128];
} test_fixture;
int test_fixture_make(test_fixture *f, uint64_t constraints, const char *tag);
/* Frees the key and removes the directory with every file in it. */
void test_fixture_free(test_fixture *f);

#endif
