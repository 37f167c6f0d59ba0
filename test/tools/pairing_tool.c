/*
 * Oracle driver for test_noble_pairing.sh: reads pairing requests on stdin (affine points as
 * canonical big-endian hex, infinity = all zeros) and answers with the library's values.
 *   e P Q          -> e(P, Q) as 12 hex Fp values, c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1
 *   m n P1 Q1 ...  -> prod e(Pi, Qi) through pairing_multi, same format
 *   q P1 Q1 P2 Q2  -> 1 if e(P1, Q1) = e(P2, Q2) (one multi-pairing with -P2), else 0
 * P is "x y" (2 hex words), Q is "x.c0 x.c1 y.c0 y.c1" (4 hex words).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/pairing.h"

static int read_fp(fp_t *r)
{
    char hex[200];
    uint8_t be[48];
    if (scanf("%199s", hex) != 1 || strlen(hex) != 96) return 0;
    for (int i = 0; i < 48; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return 0;
        be[i] = (uint8_t)v;
    }
    return fp_from_be48(r, be);
}

static int read_g1(g1_aff *p) { return read_fp(&p->x) && read_fp(&p->y); }
static int read_g2(g2_aff *q)
{
    return read_fp(&q->x.c0) && read_fp(&q->x.c1) && read_fp(&q->y.c0) && read_fp(&q->y.c1);
}

static void print_fp12(const fp12_t *e)
{
    const fp2_t *c[6] = {&e->c0.c0, &e->c0.c1, &e->c0.c2, &e->c1.c0, &e->c1.c1, &e->c1.c2};
    for (int k = 0; k < 6; k++)
        for (int h = 0; h < 2; h++) {
            uint8_t be[48];
            fp_to_be48(be, h ? &c[k]->c1 : &c[k]->c0);
            for (int i = 0; i < 48; i++) printf("%02x", be[i]);
            putchar(k == 5 && h == 1 ? '\n' : ' ');
        }
}

int main(void)
{
    char cmd[8];
    while (scanf("%7s", cmd) == 1) {
        fp12_t e;
        if (!strcmp(cmd, "e")) {
            g1_aff p;
            g2_aff q;
            if (!read_g1(&p) || !read_g2(&q)) goto bad;
            pairing(&e, &p, &q);
            print_fp12(&e);
        } else if (!strcmp(cmd, "m")) {
            size_t n;
            if (scanf("%zu", &n) != 1 || n > 64) goto bad;
            g1_aff p[64];
            g2_aff q[64];
            for (size_t i = 0; i < n; i++)
                if (!read_g1(&p[i]) || !read_g2(&q[i])) goto bad;
            pairing_multi(&e, p, q, n);
            print_fp12(&e);
        } else if (!strcmp(cmd, "q")) {
            g1_aff p[2];
            g2_aff q[2];
            if (!read_g1(&p[0]) || !read_g2(&q[0]) || !read_g1(&p[1]) || !read_g2(&q[1])) goto bad;
            fp_neg(&p[1].y, &p[1].y);   /* infinity (0, 0) stays infinity */
            pairing_multi(&e, p, q, 2);
            printf("%d\n", fp12_is_one(&e));
        } else {
            goto bad;
        }
    }
    return 0;
bad:
    fprintf(stderr, "pairing_tool: malformed request\n");
    return 2;
}
