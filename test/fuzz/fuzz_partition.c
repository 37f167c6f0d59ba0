/* libFuzzer harness: groth16_check_partition with fuzzed sizes, densities, scalar form
 * and key counts. The buffers are allocated to the sizes the partition claims (the host's
 * lengths are trusted, SECURITY.md); sizes are bounded so one run stays fast. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"

static uint64_t take(const uint8_t **d, size_t *n, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes && *n; i++, (*d)++, (*n)--) v |= (uint64_t)**d << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 16) return 0;
    cuzk_partition p;
    memset(&p, 0, sizeof p);
    uint8_t flags = (uint8_t)take(&data, &size, 1);
    p.struct_size = flags & 1 ? sizeof p : (uint32_t)take(&data, &size, 1);
    p.scalar_form = (flags >> 1) & 3; /* 2, 3 invalid */
    p.num_inputs = take(&data, &size, 1) % 65;
    p.num_aux = take(&data, &size, 2) % 1025;
    p.abc_len = take(&data, &size, 2) % 2049;
    if (flags & 8) p.abc_len |= (uint64_t)take(&data, &size, 1) << 32; /* beyond 2^32 */
    groth16_params pk;
    memset(&pk, 0, sizeof pk);
    pk.vk.n_ic = (uint32_t)take(&data, &size, 1) % 65;
    pk.n_l = (uint32_t)take(&data, &size, 2) % 1025;
    pk.n_h = (uint32_t)take(&data, &size, 2) % 2049;
    pk.n_a = (uint32_t)take(&data, &size, 2) % 2049;
    pk.n_b_g1 = (uint32_t)take(&data, &size, 2) % 2049;
    pk.n_b_g2 = flags & 16 ? pk.n_b_g1 : (uint32_t)take(&data, &size, 2) % 2049;

    size_t abc = p.abc_len <= 2048 ? p.abc_len : 1; /* a huge abc_len is rejected before use */
    size_t ni = p.num_inputs ? p.num_inputs : 1, na = p.num_aux ? p.num_aux : 1;
    cuzk_fr *a = calloc(abc ? abc : 1, sizeof *a), *inputs = calloc(ni, sizeof *inputs);
    cuzk_fr *aux = calloc(na, sizeof *aux);
    uint64_t *ad = calloc((na + 63) / 64, 8), *bd = calloc((na + 63) / 64, 8);
    uint64_t *bi = calloc((ni + 63) / 64, 8);
    if (a && inputs && aux && ad && bd && bi) {
        if (!(flags & 32)) { /* ONE in the declared form (otherwise zero: rejected) */
            if (p.scalar_form == CUZK_FR_CANONICAL) inputs[0].l[0] = 1;
            else memcpy(&inputs[0], &FR_ONE, sizeof inputs[0]);
        }
        /* densities from the rest of the input, bits past the count included */
        memcpy(ad, data, size < (na + 63) / 64 * 8 ? size : (na + 63) / 64 * 8);
        memcpy(bd, data + size / 2, size - size / 2 < (na + 63) / 64 * 8 ? size - size / 2 : (na + 63) / 64 * 8);
        memcpy(bi, data, size < (ni + 63) / 64 * 8 ? size : (ni + 63) / 64 * 8);
        p.a = p.b = p.c = flags & 64 ? NULL : a;
        p.inputs = inputs;
        p.aux = aux;
        p.a_aux_density = ad;
        p.b_aux_density = bd;
        p.b_input_density = bi;
        int rc = groth16_check_partition(&pk, &p);
        if (rc != CUZK_OK && rc != CUZK_EINVAL && rc != CUZK_EMISMATCH) abort();
        (void)groth16_check_partition(NULL, &p);
    }
    free(a), free(inputs), free(aux), free(ad), free(bd), free(bi);
    return 0;
}
