/* supraseal C2 Assignment <-> cuzk_partition (see supraseal_adapter.h). Public API only. */
#include "supraseal_adapter.h"

#include <string.h>

static size_t popcount_bits(const uint64_t *bits, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n / 64; i++) c += (size_t)__builtin_popcountll(bits[i]);
    if (n % 64) c += (size_t)__builtin_popcountll(bits[n / 64] & ((UINT64_C(1) << (n % 64)) - 1));
    return c;
}

int supraseal_to_cuzk(const supraseal_assignment *in, int32_t scalar_form, cuzk_partition *out)
{
    if (!in || !out) return CUZK_EINVAL;
    if (scalar_form != CUZK_FR_MONTGOMERY && scalar_form != CUZK_FR_CANONICAL) return CUZK_EINVAL;
    if (!in->a || !in->b || !in->c || !in->inp_assignment_data ||
        (in->aux_assignment_size && !in->aux_assignment_data) ||
        !in->a_aux_density || !in->b_inp_density || !in->b_aux_density)
        return CUZK_EINVAL;
    /* supraseal sizes the bitmaps by the assignments; a mismatch means a stale Assignment. */
    if (in->a_aux_bit_len != in->aux_assignment_size || in->b_aux_bit_len != in->aux_assignment_size ||
        in->b_inp_bit_len != in->inp_assignment_size)
        return CUZK_EMISMATCH;
    if (popcount_bits(in->a_aux_density, in->a_aux_bit_len) != in->a_aux_popcount ||
        popcount_bits(in->b_inp_density, in->b_inp_bit_len) != in->b_inp_popcount ||
        popcount_bits(in->b_aux_density, in->b_aux_bit_len) != in->b_aux_popcount)
        return CUZK_EMISMATCH;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->scalar_form = scalar_form;
    out->a = in->a;
    out->b = in->b;
    out->c = in->c;
    out->abc_len = in->abc_size;
    out->inputs = in->inp_assignment_data;
    out->num_inputs = in->inp_assignment_size;
    out->aux = in->aux_assignment_data;
    out->num_aux = in->aux_assignment_size;
    out->a_aux_density = in->a_aux_density;
    out->b_input_density = in->b_inp_density;
    out->b_aux_density = in->b_aux_density;
    return CUZK_OK;
}

int supraseal_from_cuzk(const cuzk_partition *in, supraseal_assignment *out)
{
    if (!in || !out) return CUZK_EINVAL;
    memset(out, 0, sizeof *out);
    out->a_aux_density = in->a_aux_density;
    out->a_aux_bit_len = in->num_aux;
    out->a_aux_popcount = popcount_bits(in->a_aux_density, in->num_aux);
    out->b_inp_density = in->b_input_density;
    out->b_inp_bit_len = in->num_inputs;
    out->b_inp_popcount = popcount_bits(in->b_input_density, in->num_inputs);
    out->b_aux_density = in->b_aux_density;
    out->b_aux_bit_len = in->num_aux;
    out->b_aux_popcount = popcount_bits(in->b_aux_density, in->num_aux);
    out->a = in->a;
    out->b = in->b;
    out->c = in->c;
    out->abc_size = in->abc_len;
    out->inp_assignment_data = in->inputs;
    out->inp_assignment_size = in->num_inputs;
    out->aux_assignment_data = in->aux;
    out->aux_assignment_size = in->num_aux;
    return CUZK_OK;
}
