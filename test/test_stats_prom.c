/* cuzk_stats_format_prometheus: the text parses as Prometheus exposition format (every
 * sample line "name{labels} value" preceded by its HELP and TYPE), each sample carries the
 * right field, the size query and CUZK_ERANGE agree with the length, NULLs are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "support/testutil.h"

static cuzk_stats random_stats(void)
{
    cuzk_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.backend = CUZK_BACKEND_CUDA;
    s.devices = 3;
    s.workers = (uint32_t)test_rand64();
    uint64_t *f = &s.submitted;
    for (uint64_t *p = f; p <= &s.arena_bytes; p++) *p = test_rand64() >> (test_rand64() % 64);
    s.failed >>= 2; /* failed + verify_failed must not wrap */
    s.verify_failed >>= 2;
    return s;
}

/* The value of sample `key` ("name" or "name{labels}") in text; fails if absent or twice. */
static const char *sample(const char *text, const char *key)
{
    const char *found = NULL;
    size_t k = strlen(key);
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        assert_non_null(strchr(line, '\n')); /* every line ends in \n */
        if (line[0] != '#' && !strncmp(line, key, k) && line[k] == ' ') {
            assert_null(found);
            found = line + k + 1;
        }
    }
    assert_non_null(found);
    return found;
}

static uint64_t sample_u64(const char *text, const char *key)
{
    const char *v = sample(text, key);
    char *end;
    uint64_t x = strtoull(v, &end, 10);
    assert_true(*end == '\n');
    return x;
}

/* Every sample line's metric has exactly one HELP and one TYPE line before it. */
static void check_grammar(const char *text)
{
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        if (line[0] == '#') {
            assert_true(!strncmp(line, "# HELP cuzk_", 12) || !strncmp(line, "# TYPE cuzk_", 12));
            if (!strncmp(line, "# TYPE", 6)) {
                const char *t = memchr(line + 7, ' ', (size_t)(nl - line - 7));
                assert_non_null(t);
                assert_true(!strncmp(t, " counter\n", 9) || !strncmp(t, " gauge\n", 7));
            }
            continue;
        }
        size_t n = strcspn(line, "{ ");
        assert_true(n > 5 && !strncmp(line, "cuzk_", 5));
        for (size_t i = 0; i < n; i++)
            assert_true(line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z') || (line[i] >= '0' && line[i] <= '9'));
        char type[160];
        snprintf(type, sizeof type, "# TYPE %.*s ", (int)n, line);
        const char *t = strstr(text, type);
        assert_non_null(t);
        assert_true(t < line);
        assert_null(strstr(t + 1, type)); /* declared once */
    }
}

static void fields_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        cuzk_stats s = random_stats();
        uint64_t busy[3] = {test_rand64() >> 8, 0, 1500000001};
        size_t need = 0;
        assert_int_equal(cuzk_stats_format_prometheus(&s, busy, 3, NULL, 0, &need), CUZK_ERANGE);
        assert_true(need > 500);
        char *buf = malloc(need + 1);
        size_t got = 0;
        assert_int_equal(cuzk_stats_format_prometheus(&s, busy, 3, buf, need + 1, &got), CUZK_OK);
        assert_int_equal(got, need);
        assert_int_equal(strlen(buf), need);
        check_grammar(buf);
        assert_int_equal(sample_u64(buf, "cuzk_proofs_submitted_total"), s.submitted);
        assert_int_equal(sample_u64(buf, "cuzk_proofs_completed_total"), s.completed);
        assert_int_equal(sample_u64(buf, "cuzk_proofs_failed_total"), s.failed + s.verify_failed);
        assert_int_equal(sample_u64(buf, "cuzk_proofs_verify_failed_total"), s.verify_failed);
        assert_int_equal(sample_u64(buf, "cuzk_proofs_canceled_total"), s.canceled);
        assert_int_equal(sample_u64(buf, "cuzk_queue_depth"), s.queued);
        assert_int_equal(sample_u64(buf, "cuzk_jobs_running"), s.running);
        assert_int_equal(sample_u64(buf, "cuzk_results_unpolled"), s.unpolled);
        assert_int_equal(sample_u64(buf, "cuzk_queue_capacity"), s.queue_capacity);
        assert_int_equal(sample_u64(buf, "cuzk_host_budget_bytes"), s.host_budget_bytes);
        assert_int_equal(sample_u64(buf, "cuzk_host_budget_used_bytes"), s.host_reserved_bytes);
        assert_int_equal(sample_u64(buf, "cuzk_host_budget_peak_bytes"), s.host_reserved_peak);
        assert_int_equal(sample_u64(buf, "cuzk_host_alloc_bytes"), s.host_alloc_bytes);
        assert_int_equal(sample_u64(buf, "cuzk_budget_waits_total"), s.budget_waits);
        assert_int_equal(sample_u64(buf, "cuzk_trace_events_total"), s.trace_events);
        assert_int_equal(sample_u64(buf, "cuzk_trace_dropped_total"), s.trace_dropped);
        assert_int_equal(sample_u64(buf, "cuzk_arena_collects_total"), s.arena_collects);
        assert_int_equal(sample_u64(buf, "cuzk_arena_bytes"), s.arena_bytes);
        assert_int_equal(sample_u64(buf, "cuzk_workers"), s.workers);
        assert_int_equal(sample_u64(buf, "cuzk_devices"), 3);
        char info[96];
        snprintf(info, sizeof info, "cuzk_info{version=\"%s\",backend=\"cuda\"}", cuzk_version_string());
        assert_int_equal(sample_u64(buf, info), 1);
        /* seconds with nanosecond decimals, compared as exact integers */
        for (int d = 0; d < 3; d++) {
            char key[64];
            snprintf(key, sizeof key, "cuzk_device_busy_seconds_total{device=\"%d\"}", d);
            const char *v = sample(buf, key);
            char *dot;
            uint64_t sec = strtoull(v, &dot, 10);
            assert_true(*dot == '.');
            char *end;
            uint64_t frac = strtoull(dot + 1, &end, 10);
            assert_int_equal(end - dot - 1, 9);
            assert_int_equal(sec * 1000000000u + frac, busy[d]);
        }
        /* every byte count too small is refused with the same length; buf left empty */
        size_t small = (size_t)(test_rand64() % (need + 1));
        buf[0] = 'x';
        got = 0;
        assert_int_equal(cuzk_stats_format_prometheus(&s, busy, 3, buf, small, &got),
                         CUZK_ERANGE);
        assert_int_equal(got, need);
        if (small) assert_int_equal(buf[0], '\0');
        free(buf);
    }
}

static void cpu_backend_and_no_devices(void **state)
{
    (void)state;
    cuzk_stats s = random_stats();
    s.backend = CUZK_BACKEND_CPU;
    char buf[8192];
    size_t got;
    assert_int_equal(cuzk_stats_format_prometheus(&s, NULL, 0, buf, sizeof buf, &got), CUZK_OK);
    assert_null(strstr(buf, "busy"));
    assert_non_null(strstr(buf, "backend=\"cpu\""));
    uint64_t busy = 2000000000u;
    assert_int_equal(cuzk_stats_format_prometheus(&s, &busy, 1, buf, sizeof buf, &got), CUZK_OK);
    assert_non_null(strstr(buf, "cuzk_device_busy_seconds_total{device=\"cpu\"} 2.000000000\n"));
    check_grammar(buf);
}

static void bad_arguments(void **state)
{
    (void)state;
    cuzk_stats s = random_stats();
    char buf[8192];
    size_t got;
    uint64_t busy = 1;
    assert_int_equal(cuzk_stats_format_prometheus(NULL, NULL, 0, buf, sizeof buf, &got), CUZK_EINVAL);
    assert_int_equal(cuzk_stats_format_prometheus(&s, NULL, 0, buf, sizeof buf, NULL), CUZK_EINVAL);
    assert_int_equal(cuzk_stats_format_prometheus(&s, NULL, 0, NULL, 10, &got), CUZK_EINVAL);
    assert_int_equal(cuzk_stats_format_prometheus(&s, NULL, 1, buf, sizeof buf, &got), CUZK_EINVAL);
    assert_int_equal(cuzk_stats_format_prometheus(&s, &busy, 1, buf, sizeof buf, &got), CUZK_OK);
    s.struct_size = offsetof(cuzk_stats, arena_bytes);
    assert_int_equal(cuzk_stats_format_prometheus(&s, NULL, 0, buf, sizeof buf, &got), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "struct_size"));
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_round_trip),
        cmocka_unit_test(cpu_backend_and_no_devices),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
