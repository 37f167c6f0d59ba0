/* Seeded test randomness (xoshiro256**), replayable through CUZK_TEST_SEED. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t st[4];
static int seeded;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t test_seed(void)
{
    static uint64_t seed;
    if (seeded) return seed;
    const char *env = getenv("CUZK_TEST_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) st[i] = splitmix(&x);
    seeded = 1;
    printf("seed: 0x%016llx (replay with CUZK_TEST_SEED=0x%016llx)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t test_rand64(void)
{
    if (!seeded) test_seed();
    uint64_t r = rotl(st[1] * 5, 7) * 9, t = st[1] << 17;
    st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3];
    st[2] ^= t; st[3] = rotl(st[3], 45);
    return r;
}

void test_rand_bytes(void *out, uint64_t n)
{
    unsigned char *p = out;
    while (n) {
        uint64_t r = test_rand64();
        unsigned k = n < 8 ? (unsigned)n : 8;
        memcpy(p, &r, k);
        p += k; n -= k;
    }
}
