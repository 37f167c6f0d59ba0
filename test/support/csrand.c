/* Random constraint systems and witnesses (csrand.h). */
#include "support/csrand.h"

#include <stdlib.h>
#include <string.h>

#include "support/fieldtest.h"
#include "support/testutil.h"

/* A coefficient from the edge set, or zero (dropped by csc) one time in 8. */
static void edge_coeff(fr_t *r)
{
    switch (test_rand64() % 8) {
    case 0: *r = FR_ONE; break;
    case 1: fr_neg(r, &FR_ONE); break;
    case 2: fr_from_u64(r, (uint64_t)1 << (test_rand64() % 64)); break;
    case 3: fr_from_u64(r, 2); fr_neg(r, r); break; /* r - 2 */
    case 4: *r = FR_ZERO; break;
    default: ft_rand_fr(r); break;
    }
}

/* Random system: ni inputs, na aux, nc constraints; each side of a row has 0..4 distinct
 * variables (empty rows included), so some variables appear nowhere. */
void random_cs(cs *s, uint64_t ni, uint64_t na, uint64_t nc)
{
    memset(s, 0, sizeof *s);
    s->num_inputs = ni, s->num_aux = na, s->num_constraints = nc;
    cs_lc_rows *rows[3] = {&s->a, &s->b, &s->c};
    for (int w = 0; w < 3; w++) {
        rows[w]->off = malloc((nc + 1) * sizeof(uint64_t));
        rows[w]->terms = malloc((nc * 4 + 1) * sizeof(cs_term));
        uint64_t f = 0;
        for (uint64_t k = 0; k < nc; k++) {
            rows[w]->off[k] = f;
            unsigned n = (unsigned)(test_rand64() % 5);
            uint64_t first = test_rand64() % (ni + na);
            for (unsigned t = 0; t < n && t < ni + na; t++) { /* distinct: consecutive mod n */
                rows[w]->terms[f].var = (first + t * 7) % (ni + na);
                if (t && rows[w]->terms[f].var == rows[w]->terms[f - t].var) break;
                edge_coeff(&rows[w]->terms[f].coeff);
                f++;
            }
        }
        rows[w]->off[nc] = f;
    }
}

void random_witness(fr_t *in, fr_t *aux, uint64_t ni, uint64_t na)
{
    in[0] = FR_ONE;
    for (uint64_t i = 1; i < ni; i++) ft_rand_fr(&in[i]);
    for (uint64_t i = 0; i < na; i++) {
        unsigned k = (unsigned)(test_rand64() % 4);
        if (k == 0) aux[i] = FR_ZERO;
        else if (k == 1) aux[i] = FR_ONE;
        else ft_rand_fr(&aux[i]);
    }
}

