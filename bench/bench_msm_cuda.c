/*
 * cuzk-bench msm --backend cuda: one CUDA MSM (G1 or G2) over bases resident on the device
 * (made there, untimed) and scalars in pinned host memory (or, with --scalars device, already on
 * the device); prints the median of the CUDA-event times (scalar upload included) and what the
 * plan chose. --bits-fraction F makes a fraction F of the scalars 0 or 1 (the PoRep shape);
 * --streams S runs S contexts from S threads at once; --acc xyzz,affine times the bucket
 * accumulations side by side on the same data and checks that they agree; --precompute 1,2,13
 * does the same with that many precomputed shifted copies of the bases (1 = none; the copies'
 * window from --window or chosen for the size), timing how long making them took;
 * --entries L caps the context's sort entries at 2^L (the backend's full slot: 26);
 * --pieces MIB accumulates the MSM in pieces of that many MiB of bases (msm_gpu_acc_*, a
 * streamed key's path, read from the resident bases: no copy), and --shared 0,512,2048 times
 * the pieces each reducing their own buckets (0) and sharing one array within that many MiB.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/cuzk.h"

#ifdef CUZK_HAVE_CUDA
#include "cuda_util.h"
#include "field/curve.h"
#include "msm.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* canonical scalars below r: random 255-bit values with the top limb capped below r's */
static void fill_scalars(fr_t *k, size_t n, double bits_fraction)
{
    uint64_t cut = (uint64_t)(bits_fraction * 18446744073709551615.0);
    for (size_t i = 0; i < n; i++) {
        memset(&k[i], 0, sizeof k[i]);
        if (bits_fraction > 0 && rnd() <= cut) {
            k[i].l[0] = rnd() & 1;
            continue;
        }
        for (int j = 0; j < 4; j++) k[i].l[j] = rnd();
        k[i].l[3] %= 0x73eda753299d7d48ull; /* < r's top limb: always < r */
    }
}

typedef struct {
    msm_gpu_ctx *ctx;
    const msm_gpu_bases *gb;
    const fr_t *k;
    const void *dk; /* device copy, or NULL */
    size_t n;
    int reps, rc;
    double *ms;
    void *out;
    int curve;
    size_t piece;  /* points a piece (msm_gpu_acc_*), 0: one msm_gpu_run */
    size_t shared; /* the pieces share buckets within this many bytes, 0: each reduces its own */
} worker;

/* One MSM accumulated in pieces of the resident bases (device scalars). */
static int run_pieces(worker *w)
{
    const size_t pb = w->curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    int rc = msm_gpu_acc_begin(w->ctx, w->curve, w->n, CUZK_FR_CANONICAL, w->shared != 0, w->shared);
    for (size_t o = 0; o < w->n && !rc; o += w->piece)
        rc = msm_gpu_acc_add(w->ctx, (const uint8_t *)msm_gpu_bases_data(w->gb) + o * pb,
                             (const uint8_t *)w->dk + o * sizeof(fr_t), w->n - o < w->piece ? w->n - o : w->piece);
    return rc ? rc : msm_gpu_acc_end(w->ctx, w->out);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < w->reps && !w->rc; r++) {
        w->rc = w->piece ? run_pieces(w)
                         : msm_gpu_run(w->ctx, w->gb, 0, w->dk ? w->dk : (const void *)w->k, w->n, CUZK_FR_CANONICAL,
                                       w->dk ? MSM_SCALARS_DEVICE : MSM_SCALARS_HOST, w->out);
        msm_gpu_stats st;
        msm_gpu_last_stats(w->ctx, &st);
        w->ms[r] = st.device_ms;
    }
    return NULL;
}

#define MSM_CUDA_USAGE "--backend cuda --curve g1|g2 --log N [--reps R] [--bits-fraction F] [--window C] " \
                       "[--streams S] [--scalars host|device] [--device D] [--acc LIST] [--precompute LIST] " \
                       "[--entries L] [--pieces MIB [--shared LIST]] [--json]"
#define MSM_CUDA_ACC "  --acc: bucket accumulations to time one after another on the same data, comma-separated,\n" \
                     "         each auto, xyzz, affine[:MIN_BATCH[:KMUL]] or pairwise[:MIN_PAIRS[:KMUL[:ROUNDS]]]\n" \
                     "         (default: the context's, from CUZK_MSM_ACC: auto, pairwise from 2^20 scalars)\n" \
                     "  --precompute: shifted copies of the bases to time one after another, comma-separated\n" \
                     "         counts (1 = none, the plain plan; more: the run forced onto them), first accumulation\n" \
                     "  --entries: the context's digit-sort entries, 2^L (0 or unset: 28; the backend's full slot 26)\n" \
                     "  --pieces: accumulate in pieces of this many MiB of bases (a streamed key's MSM; needs\n" \
                     "         --scalars device); --shared: MiB the pieces' one bucket array may take, to time one\n" \
                     "         after another, comma-separated (0: each piece reduces its own; default 0)\n"

static int usage(void)
{
    fprintf(stderr, "usage: cuzk-bench msm " MSM_CUDA_USAGE "\n" MSM_CUDA_ACC);
    return 2;
}

/* One entry of --acc: "xyzz", "affine[:min_batch[:kmul]]" or "pairwise[:min_pairs[:kmul[:rounds]]]". */
typedef struct {
    char name[32];
    int mode;
    unsigned min_batch, kmul, rounds;
} acc_choice;

static int parse_acc(const char *list, acc_choice *out, int max)
{
    int n = 0;
    while (*list && n < max) {
        size_t len = strcspn(list, ",");
        acc_choice *a = &out[n];
        memset(a, 0, sizeof *a);
        if (len == 0 || len >= sizeof a->name) return -1;
        memcpy(a->name, list, len);
        if (!strcmp(a->name, "xyzz")) a->mode = MSM_ACC_XYZZ;
        else if (!strcmp(a->name, "auto")) a->mode = MSM_ACC_AUTO;
        else if (!strncmp(a->name, "affine", 6) && (a->name[6] == 0 || a->name[6] == ':')) {
            a->mode = MSM_ACC_AFFINE;
            if (a->name[6] == ':' && sscanf(a->name + 7, "%u:%u", &a->min_batch, &a->kmul) < 1) return -1;
        } else if (!strncmp(a->name, "pairwise", 8) && (a->name[8] == 0 || a->name[8] == ':')) {
            a->mode = MSM_ACC_PAIRWISE;
            if (a->name[8] == ':' && sscanf(a->name + 9, "%u:%u:%u", &a->min_batch, &a->kmul, &a->rounds) < 1)
                return -1;
        } else
            return -1;
        n++;
        list += len;
        if (*list == ',' && !*++list) return -1; /* "xyzz,": a mode missing after the comma */
    }
    return *list ? -1 : n;
}

/* --precompute: "1,2,13" (1..64); --shared: "0,512,2048" (0..8192) */
static int parse_counts(const char *list, unsigned *out, int max, long lo, long hi)
{
    int n = 0;
    while (*list && n < max) {
        char *end;
        long v = strtol(list, &end, 10);
        if (end == list || v < lo || v > hi) return -1;
        out[n++] = (unsigned)v;
        if (*end && *end != ',') return -1;
        if (*end == ',' && !end[1]) return -1; /* "1,": a count missing after the comma */
        list = *end == ',' ? end + 1 : end;
    }
    return *list ? -1 : n;
}

int bench_msm_cuda(int argc, char **argv)
{
    const char *curve = "g1", *where = "host", *backend = "cuda";
    int log_n = -1, reps = 5, json = 0, streams = 1, device = 0, window_i = 0, entries_log = 0, piece_mb = 0;
    const char *pre_s = NULL, *shared_s = NULL;
    unsigned pre[16], shared[16] = {0};
    int npre = 0, nshared = 1;
    double frac = 0;
    acc_choice accs[8];
    const char *env_acc = getenv("CUZK_MSM_ACC"), *acc_s = NULL;
    int nacc = parse_acc(env_acc && (!strcmp(env_acc, "xyzz") || !strcmp(env_acc, "affine") ||
                                      !strcmp(env_acc, "pairwise"))
                             ? env_acc
                             : "auto",
                         accs, 8);
    const bench_opt opts[] = {{"backend", BOPT_STR, &backend}, {"curve", BOPT_STR, &curve},
                              {"log", BOPT_INT, &log_n},        {"reps", BOPT_INT, &reps},
                              {"bits-fraction", BOPT_DOUBLE, &frac}, {"window", BOPT_INT, &window_i},
                              {"streams", BOPT_INT, &streams},  {"device", BOPT_INT, &device},
                              {"scalars", BOPT_STR, &where},    {"acc", BOPT_STR, &acc_s},
                              {"precompute", BOPT_STR, &pre_s}, {"entries", BOPT_INT, &entries_log},
                              {"pieces", BOPT_INT, &piece_mb},  {"shared", BOPT_STR, &shared_s},
                              {"json", BOPT_FLAG, &json},       {NULL, 0, NULL}};
    int parsed = bench_args("msm", MSM_CUDA_USAGE,
                        "CUDA MSM over 2^N resident bases made on the device; median of the CUDA-event times, scalar "
                        "upload included\n" MSM_CUDA_ACC, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (strcmp(backend, "cuda") || window_i < 0 || (acc_s && (nacc = parse_acc(acc_s, accs, 8)) < 1) ||
        (pre_s && (npre = parse_counts(pre_s, pre, 16, 1, 64)) < 1) || entries_log < 0 || entries_log > 30 ||
        (shared_s && (nshared = parse_counts(shared_s, shared, 16, 0, 8192)) < 1) || piece_mb < 0 || piece_mb > 65536)
        return usage();
    unsigned window = (unsigned)window_i;
    int g2 = !strcmp(curve, "g2");
    if ((!g2 && strcmp(curve, "g1")) || log_n < 0 || log_n > 30 || reps < 1 || streams < 1 || streams > 16 ||
        frac < 0 || frac > 1 || (strcmp(where, "host") && strcmp(where, "device")))
        return usage();
    if (npre && nacc > 1) { /* the copies are timed under one accumulation: the rest would be dropped */
        fprintf(stderr, "cuzk-bench msm: --precompute with %d --acc modes (give one)\n", nacc);
        return 2;
    }
    if (shared_s && (!piece_mb || npre || nacc > 1)) {
        fprintf(stderr, "cuzk-bench msm: --shared needs --pieces, one --acc mode and no --precompute\n");
        return 2;
    }
    if (piece_mb && (npre || strcmp(where, "device"))) {
        fprintf(stderr, "cuzk-bench msm: --pieces needs --scalars device and no --precompute\n");
        return 2;
    }
    if (gpu_device_count() <= device) {
        fprintf(stderr, "cuzk-bench msm: no CUDA device %d\n", device);
        return 2;
    }
    char name[256] = "?";
    gpu_device_describe(device, name, sizeof name);
    size_t n = (size_t)1 << log_n;
    int curve_id = g2 ? MSM_CURVE_G2 : MSM_CURVE_G1;

    uint64_t t0 = bench_now_ns();
    msm_gpu_bases *gb = NULL;
    const void *gen = g2 ? (const void *)&G2_GENERATOR : (const void *)&G1_GENERATOR;
    if (msm_gpu_bases_generate(&gb, device, curve_id, n, gen, rnd(), rnd() | 1)) {
        fprintf(stderr, "cuzk-bench msm: bases: %s\n", cuzk_last_error());
        return 1;
    }
    double gen_s = (double)(bench_now_ns() - t0) / 1e9;

    worker w[16];
    pthread_t th[16];
    int rc = 0;
    for (int s = 0; s < streams; s++) {
        memset(&w[s], 0, sizeof w[s]);
        void *k = NULL;
        if (gpu_host_alloc(&k, n * sizeof(fr_t))) {
            fprintf(stderr, "cuzk-bench msm: pinned scalars: %s\n", cuzk_last_error());
            return 1;
        }
        fill_scalars(k, n, frac);
        w[s].k = k;
        if (!strcmp(where, "device")) {
            void *d = NULL;
            if (gpu_set_device(device) || gpu_malloc(&d, n * sizeof(fr_t)) || gpu_memcpy_to_device(d, k, n * sizeof(fr_t))) {
                fprintf(stderr, "cuzk-bench msm: device scalars: %s\n", cuzk_last_error());
                return 1;
            }
            w[s].dk = d;
        }
        w[s].gb = gb;
        w[s].n = n;
        w[s].ms = calloc((size_t)reps + 1, sizeof(double));
        w[s].out = malloc(sizeof(g2_jac));
        w[s].curve = curve_id;
        w[s].piece = ((size_t)piece_mb << 20) / (g2 ? sizeof(g2_aff) : sizeof(g1_aff));
        if (msm_gpu_ctx_create(&w[s].ctx, device, NULL, entries_log ? (size_t)1 << entries_log : 0)) {
            fprintf(stderr, "cuzk-bench msm: context: %s\n", cuzk_last_error());
            return 1;
        }
        if (window) msm_gpu_ctx_set_window(w[s].ctx, window);
    }
    /* each accumulation mode (or count of copies) over the same bases and scalars; results
     * compared across them */
    g2_jac first_out;
    const int nvar = npre ? npre : shared_s ? nshared : nacc;
    for (int vi = 0; vi < nvar && !rc; vi++) {
        const int a = npre || shared_s ? 0 : vi;
        double pre_s_made = 0;
        char label[48];
        snprintf(label, sizeof label, "%.31s", accs[a].name);
        if (npre) {
            uint64_t tp0 = bench_now_ns();
            if (msm_gpu_bases_precompute(gb, pre[vi], window)) {
                fprintf(stderr, "cuzk-bench msm: precompute %u: %s\n", pre[vi], cuzk_last_error());
                return 1;
            }
            pre_s_made = (double)(bench_now_ns() - tp0) / 1e9;
            snprintf(label, sizeof label, "%.31s, %u cop%s", accs[a].name, pre[vi], pre[vi] == 1 ? "y" : "ies");
        }
        if (piece_mb) {
            for (int s = 0; s < streams; s++) w[s].shared = (size_t)shared[shared_s ? vi : 0] << 20;
            if (shared[shared_s ? vi : 0])
                snprintf(label, sizeof label, "%.20s, shared %u MiB", accs[a].name, shared[shared_s ? vi : 0]);
            else snprintf(label, sizeof label, "%.20s, own reductions", accs[a].name);
        }
        for (int s = 0; s < streams; s++) {
            msm_gpu_ctx_set_precompute(w[s].ctx, npre && pre[vi] > 1 ? MSM_PRE_FORCE : MSM_PRE_AUTO);
            msm_gpu_ctx_set_accumulation(w[s].ctx, accs[a].mode, accs[a].min_batch, accs[a].kmul);
            msm_gpu_ctx_set_pair_rounds(w[s].ctx, accs[a].rounds);
            /* warm-up: module load, scratch allocation */
            w[s].reps = 1;
            w[s].rc = 0;
            work(&w[s]);
            if (w[s].rc) {
                fprintf(stderr, "cuzk-bench msm: %s\n", cuzk_last_error());
                return 1;
            }
            w[s].reps = reps;
        }
        uint64_t t1 = bench_now_ns();
        for (int s = 0; s < streams; s++) pthread_create(&th[s], NULL, work, &w[s]);
        for (int s = 0; s < streams; s++) pthread_join(th[s], NULL);
        double wall_ms = (double)(bench_now_ns() - t1) / 1e6;
        for (int s = 0; s < streams; s++)
            if (w[s].rc) {
                fprintf(stderr, "cuzk-bench msm: %s\n", cuzk_last_error());
                rc = 1;
            }
        int same = 1;
        if (vi == 0) memcpy(&first_out, w[0].out, sizeof first_out);
        else same = g2 ? g2_jac_eq(&first_out, w[0].out) : g1_jac_eq((const g1_jac *)&first_out, w[0].out);
        if (!same) {
            fprintf(stderr, "cuzk-bench msm: %s gave a different result than the first\n", label);
            rc = 1;
        }
        msm_gpu_stats st;
        msm_gpu_last_stats(w[0].ctx, &st);
        double lo = w[0].ms[0];
        for (int r = 1; r < reps; r++) if (w[0].ms[r] < lo) lo = w[0].ms[r];
        double med = bench_median(w[0].ms, reps);
        double per = wall_ms / (reps * streams);
        const char *ran = st.acc == MSM_ACC_PAIRWISE ? "pairwise" : st.acc == MSM_ACC_AFFINE ? "affine" : "xyzz";
        /* CUZK_MSM_REDUCE is an environment knob: the reproduce line says it where set */
        const int segmul = st.reduce == MSM_REDUCE_SEGMUL, knob = msm_reduce_from_env();
        const char *knob_s = knob == MSM_REDUCE_SEGMUL ? "CUZK_MSM_REDUCE=0 " : knob == MSM_REDUCE_LEVELS ? "CUZK_MSM_REDUCE=1 " : "";
        /* the reproduce line's options past --acc */
        const unsigned shared_mb = piece_mb ? shared[shared_s ? vi : 0] : 0;
        char extra[96] = "";
        int at = entries_log ? snprintf(extra, sizeof extra, " --entries %d", entries_log) : 0;
        if (piece_mb) snprintf(extra + at, sizeof extra - (size_t)at, " --pieces %d --shared %u", piece_mb, shared_mb);
        if (json)
            printf("{\"bench\":\"msm\",\"backend\":\"cuda\",\"curve\":\"%s\",\"log_n\":%d,\"bits_fraction\":%.3f,"
                   "\"scalars\":\"%s\",\"acc\":\"%s\",\"acc_ran\":\"%s\",\"reduce\":\"%s\",\"copies\":%u,\"copies_made_s\":%.3f,\"streams\":%d,\"reps\":%d,"
                   "\"median_ms\":%.3f,\"min_ms\":%.3f,\"wall_per_msm_ms\":%.3f,\"window\":%u,\"groups\":%u,"
                   "\"n_zero\":%llu,\"n_one\":%llu,\"n_rest\":%llu,\"same_result\":%d,\"entries_log\":%d,"
                   "\"piece_mb\":%d,\"shared_mb\":%u,\"device\":\"%s\"}\n",
                   curve, log_n, frac, where, accs[a].name, ran, segmul ? "segmul" : "levels", st.copies, pre_s_made,
                   streams, reps, med, lo, per,
                   st.window_bits, st.window_groups, (unsigned long long)st.n_zero, (unsigned long long)st.n_one,
                   (unsigned long long)st.n_rest, same, entries_log, piece_mb, shared_mb, name);
        else
            printf("msm %s cuda 2^%d (bits fraction %.2f, scalars on %s, buckets %s): median %.2f ms (min %.2f, %d reps, "
                   "CUDA events); %d stream%s: %.2f ms per MSM wall; accumulation %s, reduction %s, window %u, %u groups, %u cop%s "
                   "(made in %.2f s); "
                   "0/1/rest = %llu/%llu/%llu; result %s; bases made in %.1f s; on %s\n"
                   "  %scuzk-bench msm --backend cuda --curve %s --log %d --bits-fraction %g --reps %d --streams %d --scalars %s "
                   "--acc %s%s%s%s%s\n",
                   curve, log_n, frac, where, label, med, lo, reps, streams, streams == 1 ? "" : "s", per,
                   ran, segmul ? "segmul" : "levels", st.window_bits, st.window_groups, st.copies,
                   st.copies == 1 ? "y" : "ies", pre_s_made, (unsigned long long)st.n_zero, (unsigned long long)st.n_one,
                   (unsigned long long)st.n_rest, vi ? (same ? "equal to the first's" : "DIFFERENT") : "reference", gen_s,
                   name, knob_s, curve, log_n, frac,
                   reps, streams, where, accs[a].name, window ? " --window (forced)" : "", pre_s ? " --precompute " : "",
                   pre_s ? pre_s : "", extra);
        fflush(stdout);
    }
    for (int s = 0; s < streams; s++) {
        msm_gpu_ctx_free(w[s].ctx);
        gpu_host_free((void *)w[s].k);
        if (w[s].dk) gpu_free((void *)w[s].dk);
        free(w[s].ms);
        free(w[s].out);
    }
    msm_gpu_bases_free(gb);
    return rc;
}
#else
int bench_msm_cuda(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cuzk-bench msm: this build has no CUDA (nvcc not found or CUZK_CUDA=0)\n");
    return 2;
}
#endif
