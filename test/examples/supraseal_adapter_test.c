/* examples/c/supraseal_adapter: a synthetic supraseal Assignment laid out as 17 machine
 * words (as supraseal's C++ and Rust declare it) round-trips through cuzk_partition, and
 * inconsistent bit lengths and popcounts are refused. Prints ok / not ok lines. */
#include <stdio.h>
#include <string.h>

#include "supraseal_adapter.h"

static int failures;
#define CHECK(cond, what) do { if (cond) printf("ok - %s\n", what); \
                               else { printf("not ok - %s\n", what); failures++; } } while (0)

int main(void)
{
    /* The layout supraseal's C++ side reads: 17 words, in this order. */
    CHECK(sizeof(supraseal_assignment) == 17 * sizeof(size_t) &&
          offsetof(supraseal_assignment, a) == 9 * sizeof(size_t) &&
          offsetof(supraseal_assignment, abc_size) == 12 * sizeof(size_t) &&
          offsetof(supraseal_assignment, aux_assignment_size) == 16 * sizeof(size_t),
          "supraseal_assignment is 17 machine words in supraseal's order");

    static cuzk_fr a[10], b[10], c[10], inp[3], aux[70];
    static uint64_t a_aux[2] = {0xffffffffffffffffull, 0x3full}, b_inp[1] = {0x1}, b_aux[2] = {0x5, 0x1};
    size_t words[17] = {
        (size_t)a_aux, 70, 70, (size_t)b_inp, 3, 1, (size_t)b_aux, 70, 3,
        (size_t)a, (size_t)b, (size_t)c, 10, (size_t)inp, 3, (size_t)aux, 70,
    };
    supraseal_assignment sa;
    memcpy(&sa, words, sizeof sa); /* bytes as a supraseal host hands them over */
    cuzk_partition p;
    memset(&p, 0xab, sizeof p);
    int rc = supraseal_to_cuzk(&sa, CUZK_FR_MONTGOMERY, &p);
    CHECK(rc == CUZK_OK && p.struct_size == sizeof p && p.scalar_form == CUZK_FR_MONTGOMERY &&
          p.a == a && p.b == b && p.c == c && p.abc_len == 10 && p.inputs == inp &&
          p.num_inputs == 3 && p.aux == aux && p.num_aux == 70 && p.a_aux_density == a_aux &&
          p.b_input_density == b_inp && p.b_aux_density == b_aux && !p.r && !p.s &&
          !p.release && p.reserved == 0 && p.priority == 0,
          "supraseal_to_cuzk copies every field");
    supraseal_assignment back;
    CHECK(supraseal_from_cuzk(&p, &back) == CUZK_OK && !memcmp(&back, words, sizeof back),
          "supraseal_from_cuzk gives the same 17 words back (popcounts recomputed)");

    supraseal_assignment bad = sa;
    bad.a_aux_popcount = 69;
    CHECK(supraseal_to_cuzk(&bad, CUZK_FR_MONTGOMERY, &p) == CUZK_EMISMATCH, "wrong a_aux popcount refused");
    bad = sa;
    a_aux[1] |= 1ull << 6; /* bit 70: beyond the bit length, must not count */
    CHECK(supraseal_to_cuzk(&bad, CUZK_FR_MONTGOMERY, &p) == CUZK_OK, "bits past the bit length ignored");
    bad.b_aux_bit_len = 69;
    CHECK(supraseal_to_cuzk(&bad, CUZK_FR_MONTGOMERY, &p) == CUZK_EMISMATCH, "b_aux bit length != aux size refused");
    bad = sa;
    bad.b_inp_bit_len = 2;
    CHECK(supraseal_to_cuzk(&bad, CUZK_FR_MONTGOMERY, &p) == CUZK_EMISMATCH, "b_inp bit length != inputs refused");
    bad = sa;
    bad.a = NULL;
    CHECK(supraseal_to_cuzk(&bad, CUZK_FR_MONTGOMERY, &p) == CUZK_EINVAL, "NULL a refused");
    CHECK(supraseal_to_cuzk(&sa, 7, &p) == CUZK_EINVAL && supraseal_to_cuzk(NULL, 0, &p) == CUZK_EINVAL,
          "bad scalar_form and NULL refused");
    return failures ? 1 : 0;
}
