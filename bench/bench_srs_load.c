/*
 * cuzk-bench srs-load: how fast a proving key (.params) loads through cuzk_srs_load, with and
 * without the subgroup check, against a plain read of the same file (the "storage speed"
 * reference), with the split read / decode+check (groth16_params_load) / upload+wrap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#define SRS_USAGE "--log N [--shape porep|snap|wpost|winning] [--backend cpu|cuda|auto]\n" \
                  "         [--reps R] [--threads T] [--fill PCT] [--key FILE] [--subgroup-reps S] [--no-subgroup]\n" \
                  "         [--json out.json]"
#define SRS_WHAT "proving-key load throughput through cuzk_srs_load (see the usage on errors for details)"

static int usage(void)
{
    fprintf(stderr,
            "usage: cuzk-bench srs-load " SRS_USAGE "\n"
            "  Loads a key of the shape (default porep) and domain 2^N (a real test-only setup, cached in /tmp under the\n"
            "  name cuzk-bench pipeline uses) or FILE: R times with flags 0 (each also timing\n"
            "  groth16_params_load alone, the host decode), then S times (default 1: the check is slow)\n"
            "  with CUZK_SRS_CHECK_SUBGROUP.\n"
            "  The read reference is read(2) from the page cache (nothing is dropped): a warm-cache\n"
            "  figure, an upper bound of what storage gives.\n");
    return 2;
}

/* One plain read(2) of the whole file into buf (already touched, so no page faults). */
static int read_file(const char *path, uint8_t *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    return got == len ? 0 : -1;
}

int bench_srs_load(int argc, char **argv)
{
    int log_m = -1, reps = 3, sreps = 1, threads = 0, fill = 0, subgroup = 1;
    const char *backend = "auto", *key = NULL, *json = NULL, *shape = "porep";
    int no_subgroup = 0;
    const bench_opt opts[] = {{"log", BOPT_INT, &log_m},     {"backend", BOPT_STR, &backend},
                              {"reps", BOPT_INT, &reps},      {"subgroup-reps", BOPT_INT, &sreps},
                              {"threads", BOPT_INT, &threads}, {"fill", BOPT_INT, &fill},
                              {"shape", BOPT_STR, &shape},    {"key", BOPT_STR, &key},
                              {"json", BOPT_STR, &json},      {"no-subgroup", BOPT_FLAG, &no_subgroup},
                              {NULL, 0, NULL}};
    int parsed = bench_args("srs-load", SRS_USAGE, SRS_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (no_subgroup) subgroup = 0;
    if ((!key && (log_m < 6 || log_m > 26)) || reps < 1 || reps > 1000 || sreps < 1 || sreps > 1000 || threads < 0 || fill < 0 || fill > 100)
        return usage();
    int32_t be = bench_parse_backend("srs-load", backend);
    if (be < 0) return 2;

    threadpool *tp = threadpool_create((unsigned)threads);
    if (!tp) { fprintf(stderr, "cuzk-bench srs-load: no thread pool\n"); return 2; }
    char path[sizeof ((bench_circuit *)0)->key_path];
    double setup_s = 0;
    bench_circuit circ;
    if (key) snprintf(path, sizeof path, "%s", key);
    else if (bench_shape_cfg(shape, log_m, fill, &circ) || bench_shape_key(&circ, tp, &setup_s)) return 2;
    else snprintf(path, sizeof path, "%s", circ.key_path);
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        fprintf(stderr, "cuzk-bench srs-load: %s: not a readable file\n", path);
        return 2;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len);
    if (!buf) { fprintf(stderr, "cuzk-bench srs-load: cannot allocate %zu bytes\n", len); return 2; }
    memset(buf, 0, len);

    cuzk_config *cc = NULL;
    cuzk_engine *e = NULL;
    int rc;
    if ((rc = cuzk_config_new(&cc)) || (rc = cuzk_config_set(cc, CUZK_OPT_BACKEND, be)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_CPU_THREADS, threads)) || (rc = cuzk_engine_create(cc, &e))) {
        fprintf(stderr, "cuzk-bench srs-load: engine: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        return 2;
    }
    cuzk_stats stats = {.struct_size = sizeof stats};
    cuzk_engine_stats(e, &stats);

    /* an untimed read and parse first: warms the page cache (nothing is ever dropped, so every
     * figure below is warm-cache) and gets the counts; then each round interleaves the phases
     * so a noisy neighbour hurts them alike */
    if (read_file(path, buf, len)) { fprintf(stderr, "cuzk-bench srs-load: cannot read %s\n", path); return 2; }
    groth16_params *pk = NULL;
    if (groth16_params_parse(buf, len, 0, tp, &pk)) {
        fprintf(stderr, "cuzk-bench srs-load: %s: %s\n", path, cuzk_last_error());
        return 2;
    }
    uint32_t n_h = pk->n_h, n_l = pk->n_l, n_a = pk->n_a, n_b1 = pk->n_b_g1, n_b2 = pk->n_b_g2;
    groth16_params_free(pk);

    /* v[0] read, v[1] groth16_params_load, v[2] cuzk_srs_load (flags 0), v[3] cuzk_srs_load (subgroup) */
    int nmax = reps > sreps ? reps : sreps;
    double *v[4];
    for (int k = 0; k < 4; k++) v[k] = calloc((size_t)nmax, sizeof(double));
    for (int r = 0; r < nmax; r++) {
        for (int f = 0; f < 2; f++) {
            if (f ? !subgroup || r >= sreps : r >= reps) continue;
            uint64_t t0 = bench_now_ns();
            if (!f) {
                if (read_file(path, buf, len)) { fprintf(stderr, "cuzk-bench srs-load: read failed\n"); return 2; }
                v[0][r] = (double)(bench_now_ns() - t0) / 1e9;
                t0 = bench_now_ns();
                if ((rc = groth16_params_load(path, 0, tp, &pk))) {
                    fprintf(stderr, "cuzk-bench srs-load: %s\n", cuzk_last_error());
                    return 2;
                }
                v[1][r] = (double)(bench_now_ns() - t0) / 1e9;
                groth16_params_free(pk);
                t0 = bench_now_ns();
            }
            cuzk_srs *srs = NULL;
            if ((rc = cuzk_srs_load(e, path, f ? CUZK_SRS_CHECK_SUBGROUP : 0, &srs))) {
                fprintf(stderr, "cuzk-bench srs-load: cuzk_srs_load: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
                return 2;
            }
            v[2 + f][r] = (double)(bench_now_ns() - t0) / 1e9;
            cuzk_srs_release(srs);
        }
    }
    double read_s = bench_median(v[0], reps), dec_s = bench_median(v[1], reps), load_s = bench_median(v[2], reps),
           sub_s = subgroup ? bench_median(v[3], sreps) : 0;
    const char *bname = stats.backend == CUZK_BACKEND_CUDA ? "cuda" : "cpu";
    double gb = (double)len / 1e9;
    printf("srs-load: %s (%zu bytes = %.4f GB; h %u, l %u, a %u, b_g1 %u, b_g2 %u)%s\n", path, len, gb, n_h, n_l,
           n_a, n_b1, n_b2, setup_s > 0 ? "" : " (cached key)");
    if (setup_s > 0) printf("  key generated in %.1f s (test-only setup, cached for later runs)\n", setup_s);
    printf("  backend %s, %u device%s, %u host threads; %s\n", bname, stats.devices, stats.devices == 1 ? "" : "s",
           threadpool_size(tp), bench_cpu_name());
    int cuda = stats.backend == CUZK_BACKEND_CUDA;
    printf("  read(2), page cache warm (not storage)      %8.3f s  %7.2f GB/s  (median of %d)\n", read_s, gb / read_s, reps);
    printf("  cuzk_srs_load, flags 0                      %8.3f s  %7.2f GB/s  (median of %d)\n", load_s, gb / load_s, reps);
    printf("    groth16_params_load (mmap, decode, on-curve) %5.3f s  %7.2f GB/s\n", dec_s, gb / dec_s);
    printf("    rest (%s)%*s%8.3f s\n", cuda ? "upload to the device(s), wrap" : "wrap", cuda ? 9 : 33, "", load_s - dec_s);
    if (subgroup)
        printf("  cuzk_srs_load, CUZK_SRS_CHECK_SUBGROUP      %8.3f s  %7.2f GB/s  (median of %d)\n", sub_s,
               gb / sub_s, sreps);
    if (key) printf("  cuzk-bench srs-load --key %s --backend %s --reps %d\n", key, backend, reps);
    else printf("  cuzk-bench srs-load --shape %s --log %d --backend %s --reps %d --threads %d --subgroup-reps %d%s\n",
                shape, log_m, backend, reps, threads, sreps, subgroup ? "" : " --no-subgroup");
    if (json) {
        FILE *jf = fopen(json, "w");
        if (!jf) { fprintf(stderr, "cuzk-bench srs-load: cannot write %s\n", json); return 2; }
        fprintf(jf, "{\"bench\": \"srs-load\", \"key\": \"%s\", \"bytes\": %zu, \"log\": %d, \"backend\": \"%s\", "
                    "\"devices\": %u, \"threads\": %u, \"reps\": %d, \"read_s\": %.6f, \"load_s\": %.6f, "
                    "\"load_gbps\": %.4f, \"params_load_s\": %.6f",
                path, len, log_m, bname, stats.devices, threadpool_size(tp), reps, read_s, load_s, gb / load_s, dec_s);
        if (subgroup) fprintf(jf, ", \"subgroup_reps\": %d, \"subgroup_load_s\": %.6f", sreps, sub_s);
        fprintf(jf, "}\n");
        fclose(jf);
    }
    for (int k = 0; k < 4; k++) free(v[k]);
    free(buf);
    cuzk_engine_destroy(e);
    cuzk_config_free(cc);
    threadpool_destroy(tp);
    return 0;
}
