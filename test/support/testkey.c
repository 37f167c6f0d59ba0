/* The engine tests' common key fixture (see testkey.h). */
#include "support/testkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/cs.h"

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
