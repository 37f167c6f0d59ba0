/* The engine tests' common key fixture (see testkey.h). */
#include "support/testkey.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/circom_file.h"
#include "groth16/cs.h"
#include "support/testutil.h"

int test_key_make(test_key *k, const synth_cfg *cfg, const char *tag, int index)
{
    memset(k, 0, sizeof *k);
    k->scfg = *cfg;
    cs sys;
    fr_t *in = NULL, *aux = NULL;
    int rc = synth_cs(&k->scfg, &sys, &in, &aux);
    if (rc) return rc;
    groth16_toxic t;
    groth16_toxic_from_seed(&t, k->scfg.seed);
    rc = groth16_setup(&sys, &t, NULL, &k->pk);
    cs_free(&sys);
    free(in);
    free(aux);
    if (rc) return rc;
    if (index < 0) snprintf(k->path, sizeof k->path, "/tmp/cuzk-%s-%d.params", tag, (int)getpid());
    else snprintf(k->path, sizeof k->path, "/tmp/cuzk-%s-%d-%d.params", tag, (int)getpid(), index);
    if ((rc = groth16_params_write(k->path, k->pk)) || (rc = groth16_vk_serialize(&k->pk->vk, &k->vk, &k->vk_len)))
        test_key_free(k);
    return rc;
}

void test_key_free(test_key *k)
{
    if (k->path[0]) unlink(k->path);
    groth16_params_free(k->pk);
    free(k->vk);
    memset(k, 0, sizeof *k);
}

int test_key_proof(const test_key *k, const uint8_t seed[32], uint8_t proof[192], cuzk_fr *pub,
                   size_t max_pub, size_t *npub)
{
    cuzk_partition p;
    int rc = synth_partition(&k->scfg, CUZK_FR_CANONICAL, &p);
    if (rc) return rc;
    fr_t r, s;
    groth16_rs_from_seed(&r, &s, seed);
    *npub = p.num_inputs - 1;
    if (*npub > max_pub) rc = CUZK_ERANGE;
    else if (!(rc = groth16_prove(k->pk, &p, &r, &s, NULL, proof)))
        memcpy(pub, p.inputs + 1, *npub * sizeof *pub);
    p.release(p.release_user);
    return rc;
}

int test_key_circom_files(const test_key *k, const char *dir, char r1cs_path[128], char wtns_path[128])
{
    snprintf(r1cs_path, 128, "%s/c.r1cs", dir);
    snprintf(wtns_path, 128, "%s/c.wtns", dir);
    cs sys;
    fr_t *in = NULL, *aux = NULL;
    int rc = synth_cs(&k->scfg, &sys, &in, &aux);
    if (rc) return rc;
    uint64_t nw = sys.num_inputs + sys.num_aux;
    fr_t *all = malloc(nw * sizeof *all);
    if (!all) rc = CUZK_ENOMEM;
    else {
        memcpy(all, in, sys.num_inputs * sizeof *all);
        memcpy(all + sys.num_inputs, aux, sys.num_aux * sizeof *all);
        if (!(rc = circom_r1cs_write(r1cs_path, &sys))) rc = circom_wtns_write(wtns_path, all, nw);
    }
    free(all);
    free(in);
    free(aux);
    cs_free(&sys);
    return rc;
}

int test_key_random(test_key *k, uint64_t constraints, const char *tag)
{
    uint8_t seed[32];
    synth_cfg cfg;
    test_seed();
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_default(&cfg, constraints, seed);
    return test_key_make(k, &cfg, tag, -1);
}

int test_fixture_make(test_fixture *f, uint64_t constraints, const char *tag)
{
    memset(f, 0, sizeof *f);
    int rc = test_key_random(&f->key, constraints, tag);
    if (rc) return rc;
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    char dir[sizeof f->dir];
    snprintf(dir, sizeof dir, "/tmp/cuzk-%s-%d", tag, (int)getpid());
    if ((rc = test_key_proof(&f->key, seed, f->proof, f->pub, sizeof f->pub / sizeof f->pub[0], &f->npub)))
        goto fail;
    if (mkdir(dir, 0700)) {
        rc = CUZK_EIO;
        goto fail;
    }
    memcpy(f->dir, dir, sizeof dir); /* made: removed by test_fixture_free from here on */
    if ((rc = test_key_circom_files(&f->key, f->dir, f->r1cs_path, f->wtns_path))) goto fail;
    return CUZK_OK;
fail:
    test_fixture_free(f);
    return rc;
}

void test_fixture_free(test_fixture *f)
{
    test_key_free(&f->key);
    DIR *d = f->dir[0] ? opendir(f->dir) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[sizeof f->dir + 256 + 2];
        snprintf(p, sizeof p, "%s/%s", f->dir, de->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    if (f->dir[0]) rmdir(f->dir);
    memset(f, 0, sizeof *f);
}
