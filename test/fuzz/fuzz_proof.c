/* libFuzzer harness: cuzk_verify with a fixed valid verifying key and fuzzed proof bytes
 * and public inputs. Input: byte 0 = scalar form, then 192 proof bytes (zero padded),
 * then public inputs 32 bytes each. The vk is read once from $CUZK_FUZZ_VK or
 * test/fuzz/data/tiny.vk (from the repository root). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"

static uint8_t *vk;
static size_t vk_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *path = getenv("CUZK_FUZZ_VK");
    if (!path) path = "test/fuzz/data/tiny.vk";
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "fuzz_proof: cannot open %s\n", path); exit(2); }
    static uint8_t buf[1 << 16];
    vk_len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    vk = buf;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int32_t form = data[0] % 3; /* 2 is invalid on purpose */
    data++, size--;
    uint8_t proof[192] = {0};
    memcpy(proof, data, size < 192 ? size : 192);
    size_t n = size > 192 ? (size - 192) / 32 : 0;
    cuzk_fr *in = NULL;
    if (n) {
        in = malloc(n * sizeof *in);
        if (!in) return 0;
        memcpy(in, data + 192, n * sizeof *in);
    }
    int rc = cuzk_verify(vk, vk_len, proof, in, n, form);
    if (rc != CUZK_OK && rc != CUZK_EVERIFY && rc != CUZK_EFORMAT && rc != CUZK_EMISMATCH &&
        rc != CUZK_EINVAL)
        abort();
    free(in);
    return 0;
}
