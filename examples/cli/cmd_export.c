/* cuzk export-vk / export-proof / export-public: snarkjs's JSON (groth16, curve "bls12381",
 * decimal strings, G2 as [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]) on stdout, so that
 * `snarkjs groth16 verify` can check libcuzk's proofs independently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "field/curve.h"
#include "groth16/groth16.h"

static void put_fp(const fp_t *a)
{
    uint64_t c[6];
    char dec[6 * 24];
    fp_from_mont(c, a);
    cli_decimal(dec, c, 6);
    printf("\"%s\"", dec);
}

/* snarkjs writes points projectively with z = 1, and infinity as (0, 1, 0). */
static void put_g1(const g1_aff *p)
{
    if (g1_aff_is_inf(p)) {
        printf("[\"0\", \"1\", \"0\"]");
        return;
    }
    printf("[");
    put_fp(&p->x);
    printf(", ");
    put_fp(&p->y);
    printf(", \"1\"]");
}

static void put_fp2(const fp2_t *a)
{
    printf("[");
    put_fp(&a->c0);
    printf(", ");
    put_fp(&a->c1);
    printf("]");
}

static void put_g2(const g2_aff *p)
{
    if (g2_aff_is_inf(p)) {
        printf("[[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]]");
        return;
    }
    printf("[");
    put_fp2(&p->x);
    printf(", ");
    put_fp2(&p->y);
    printf(", [\"1\", \"0\"]]");
}

static int check_format(const char *cmd, const char *format)
{
    if (strcmp(format, "snarkjs"))
        return cli_fail(CUZK_EINVAL, "cuzk %s: --format must be snarkjs, not '%s'", cmd, format);
    return CLI_OK;
}

int cmd_export_vk(int argc, char **argv)
{
    const char *vk_path = NULL, *format = NULL;
    cli_opt opts[] = {{"vk", 1, &vk_path}, {"format", 1, &format}, {NULL, 0, NULL}};
    if (cli_parse("export-vk", argc, argv, opts) || check_format("export-vk", format))
        return CLI_ERROR;
    uint8_t *buf;
    size_t len;
    if (cli_read_file(vk_path, &buf, &len)) return CLI_ERROR;
    groth16_vk vk;
    int rc = groth16_vk_parse(buf, len, &vk);
    free(buf);
    if (rc) return cli_fail_lib(rc);
    printf("{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %u,\n",
           vk.n_ic ? vk.n_ic - 1 : 0);
    printf(" \"vk_alpha_1\": ");
    put_g1(&vk.alpha_g1);
    printf(",\n \"vk_beta_2\": ");
    put_g2(&vk.beta_g2);
    printf(",\n \"vk_gamma_2\": ");
    put_g2(&vk.gamma_g2);
    printf(",\n \"vk_delta_2\": ");
    put_g2(&vk.delta_g2);
    printf(",\n \"IC\": [");
    for (uint32_t i = 0; i < vk.n_ic; i++) {
        printf(i ? ",\n  " : "\n  ");
        put_g1(&vk.ic[i]);
    }
    printf("\n ]\n}\n");
    groth16_vk_clear(&vk);
    return CLI_OK;
}

int cmd_export_proof(int argc, char **argv)
{
    const char *proof_path = NULL, *format = NULL;
    cli_opt opts[] = {{"proof", 1, &proof_path}, {"format", 1, &format}, {NULL, 0, NULL}};
    if (cli_parse("export-proof", argc, argv, opts) || check_format("export-proof", format))
        return CLI_ERROR;
    uint8_t *buf;
    size_t len;
    if (cli_read_file(proof_path, &buf, &len)) return CLI_ERROR;
    if (len != 192) {
        free(buf);
        return cli_fail(CUZK_EFORMAT, "%s is %zu bytes; a Groth16 proof is 192", proof_path, len);
    }
    g1_aff a, c;
    g2_aff b;
    /* verification's own decoder: a proof it refuses (infinity included) is not shown */
    int rc = groth16_proof_decode(buf, &a, &b, &c);
    free(buf);
    if (rc) return cli_fail(rc, "%s: %s", proof_path, cuzk_last_error());
    printf("{\n \"pi_a\": ");
    put_g1(&a);
    printf(",\n \"pi_b\": ");
    put_g2(&b);
    printf(",\n \"pi_c\": ");
    put_g1(&c);
    printf(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n");
    return CLI_OK;
}

int cmd_export_public(int argc, char **argv)
{
    const char *r1cs = NULL, *wtns = NULL;
    cli_opt opts[] = {{"r1cs", 1, &r1cs}, {"wtns", 1, &wtns}, {NULL, 0, NULL}};
    if (cli_parse("export-public", argc, argv, opts)) return CLI_ERROR;
    cuzk_fr *pub;
    size_t n;
    if (cli_public_from_witness(r1cs, wtns, &pub, &n)) return CLI_ERROR;
    printf("[");
    for (size_t i = 0; i < n; i++) {
        char dec[4 * 24];
        cli_decimal(dec, pub[i].l, 4);
        printf("%s\n \"%s\"", i ? "," : "", dec);
    }
    printf("%s]\n", n ? "\n" : "");
    free(pub);
    return CLI_OK;
}
