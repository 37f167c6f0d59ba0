/* The CUDA backend's tuning variables checked at engine start (cuda_env.h). */
#include "backend/cuda_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "error.h"

/* One variable: an integer in [lo, hi], or one of the words in `words` (space-separated). */
typedef struct env_rule {
    const char *name;
    long lo, hi;
    const char *words;
    const char *means;
} env_rule;

static const env_rule rules[] = {
    {"CUZK_MSM_PRECOMPUTE", 0, 16, NULL, "copies of the H bases, 0 or 1 = none"},
    {"CUZK_MSM_WAVES", 1, 8, NULL, "level-0 waves of the MSM accumulation"},
    {"CUZK_MSM_ACC", 0, 0, "auto xyzz affine pairwise", "bucket accumulation"},
    {"CUZK_MSM_PAIR_MIN", 1, 1L << 40, NULL, "scalars from which auto takes pairwise rounds"},
    {"CUZK_PIECE_MB", 1, 4096, NULL,
     "streamed pieces' size in MiB (default: an eighth of the largest vector, at most 768, or 1536 for a key that "
     "streams where the larger slot fits)"},
    {"CUZK_MSM_ENTRIES_LOG", 25, 28, NULL,
     "log2 of a full slot's MSM sort entries per window group, for every key loaded after it is set (default 26; "
     "without urgent workers a key whose largest MSM is over 2^26 takes up to 28 where its placement stays the "
     "same; at least the lean slots' 25)"},
    {"CUZK_MSM_LEAN_ENTRIES_LOG", 25, 27, NULL,
     "log2 of a streaming lean slot's MSM sort entries per window group, for measuring (default 25)"},
    {"CUZK_MSM_SHARED_BUCKETS_MB", 0, 8192, NULL,
     "a streamed MSM's pieces share one bucket array of at most this many MiB, reduced once, read at engine "
     "start (0 or unset: each piece reduces its own buckets), for measuring"},
    {"CUZK_LEAN_H_LEND", 0, 1, NULL,
     "1 (the default): a lean partition lends its free domain vector to its H MSM as scratch (wider window "
     "groups, shared buckets: msm_gpu_lent_config); 0: it does not, for comparison; read at engine start"},
    {"CUZK_LEAN_SLOTS", 1, 2, NULL, "streaming lean slots a key that streams takes where they fit (default: two where both keep a witness's room, without urgent workers)"},
    {"CUZK_MSM_AFF_MIN_BATCH", 0, 1 << 20, NULL, "affine/pairwise batch per thread, 0 = default"},
    {"CUZK_MSM_AFF_KMUL", 0, 1 << 20, NULL, "affine accumulation's entry multiple, 0 = default"},
    {"CUZK_MSM_PAIR_ROUNDS", 0, 64, NULL, "pairwise rounds, 0 = until too few pairs"},
    {"CUZK_MSM_REDUCE", 0, 1, NULL, "bucket reduction: 0 a multiplication per segment (the old), 1 two levels (the default)"},
    {"CUZK_MSM_PROFILE", 0, 1, NULL, "per-phase MSM timings and each plan's shape, on stderr"},
    {"CUZK_NTT_RADIX", 0, 0, "2 4", "NTT column stages' radix"},
    {"CUZK_H_FUSE", 0, 2, NULL, "H-step transform fusion level"},
};

static int word_in(const char *v, const char *words)
{
    const size_t n = strlen(v);
    for (const char *w = words; *w;) {
        const char *end = strchr(w, ' ');
        const size_t len = end ? (size_t)(end - w) : strlen(w);
        if (n && len == n && !strncmp(v, w, n)) return 1;
        if (!end) break;
        w = end + 1;
    }
    return 0;
}

int cuda_env_check(void)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const env_rule *r = &rules[i];
        const char *v = getenv(r->name);
        if (!v) continue;
        if (r->words) {
            if (!word_in(v, r->words))
                return err_set(CUZK_EINVAL, "%s='%s' is not one of: %s (%s); unset it for the default", r->name, v,
                               r->words, r->means);
            continue;
        }
        char *end = NULL;
        errno = 0;
        const long x = strtol(v, &end, 10);
        if (!*v || *end || errno || x < r->lo || x > r->hi)
            return err_set(CUZK_EINVAL, "%s='%s' is not an integer in %ld..%ld (%s); unset it for the default", r->name,
                           v, r->lo, r->hi, r->means);
    }
    return CUZK_OK;
}
