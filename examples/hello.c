/*
 * hello: the smallest correct libcuzk host. It loads a proving key and a circom circuit with
 * its witness, proves one partition through the engine, checks the proof against the
 * verifying key, and cleans up. Only the public headers; C99.
 *
 *   hello KEY.params KEY.vk CIRCUIT.r1cs WITNESS.wtns
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/cuzk.h>
#include <cuzk/r1cs.h>

static int fail(const char *what, int rc)
{
    fprintf(stderr, "hello: %s: %s (%s)\n", what, cuzk_strerror(rc), cuzk_last_error());
    return 1;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: hello KEY.params KEY.vk CIRCUIT.r1cs WITNESS.wtns\n");
        return 2;
    }
    int rc, ret = 1;
    cuzk_r1cs *r1cs = NULL;
    cuzk_fr *witness = NULL, *pub = NULL;
    uint64_t nw = 0, npub = 0;
    cuzk_engine *engine = NULL;
    cuzk_srs *key = NULL;
    unsigned char *vk = NULL;
    size_t vk_len = 0;

    /* 1. The witness as a partition (its buffers belong to the library until release). */
    cuzk_partition part;
    if ((rc = cuzk_r1cs_load(argv[3], &r1cs))) return fail("loading the circuit", rc);
    if ((rc = cuzk_wtns_load(argv[4], &witness, &nw))) { fail("loading the witness", rc); goto out; }
    if ((rc = cuzk_r1cs_partition(r1cs, witness, nw, &part))) { fail("building the partition", rc); goto out; }
    /* The engine releases the partition before its result arrives: keep the public inputs
     * (ONE excluded) for the check at the end. */
    npub = part.num_inputs - 1;
    pub = malloc((npub ? npub : 1) * sizeof *pub);
    if (!pub) { part.release(part.release_user); fprintf(stderr, "hello: out of memory\n"); goto out; }
    memcpy(pub, part.inputs + 1, npub * sizeof *pub);

    /* 2. An engine with the default configuration, and the proving key. */
    if ((rc = cuzk_engine_create(NULL, &engine))) { part.release(part.release_user); fail("starting the engine", rc); goto out; }
    if ((rc = cuzk_srs_load(engine, argv[1], 0, &key))) { part.release(part.release_user); fail("loading the key", rc); goto out; }

    /* 3. Submit, then wait for the result (any job's; we have only one). */
    cuzk_job job;
    part.user_tag = 42;
    if ((rc = cuzk_submit_partition(engine, key, &part, &job))) {
        part.release(part.release_user); /* a refused partition is still ours */
        fail("submitting", rc);
        goto out;
    }
    cuzk_result res;
    memset(&res, 0, sizeof res);
    res.struct_size = sizeof res;
    if ((rc = cuzk_poll_result(engine, &res, -1))) { fail("waiting for the result", rc); goto out; }
    if (res.status != CUZK_OK) { /* the job's own reason comes with its result */
        fprintf(stderr, "hello: proving: %s (%s)\n", cuzk_strerror(res.status), res.detail);
        goto out;
    }

    /* 4. Check it ourselves too (the engine already did, with CUZK_OPT_VERIFY on). */
    if (!(vk = read_file(argv[2], &vk_len))) { fprintf(stderr, "hello: cannot read %s\n", argv[2]); goto out; }
    if ((rc = cuzk_verify(vk, vk_len, res.proof, pub, npub, CUZK_FR_CANONICAL))) { fail("verifying", rc); goto out; }
    printf("hello: proof of %llu constraints verified in %.1f ms (A starts %02x%02x%02x%02x...)\n",
           (unsigned long long)(part.abc_len - part.num_inputs), res.total_ns / 1e6, res.proof[0],
           res.proof[1], res.proof[2], res.proof[3]);
    ret = 0;
out:
    /* 5. Clean up: the key, then the engine (it waits for anything still running). */
    cuzk_srs_release(key);
    cuzk_engine_destroy(engine);
    free(vk);
    free(pub);
    cuzk_free(witness);
    cuzk_r1cs_free(r1cs);
    return ret;
}
