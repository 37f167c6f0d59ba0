/* The loaded library's version and error strings agree with the header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"

static void version_matches_header(void **state)
{
    (void)state;
    assert_int_equal(cuzk_version_number(), CUZK_VERSION_NUMBER);
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", CUZK_VERSION_MAJOR, CUZK_VERSION_MINOR,
             CUZK_VERSION_PATCH);
    assert_string_equal(cuzk_version_string(), expect);
}

static void every_code_has_a_distinct_name(void **state)
{
    (void)state;
    for (int c = CUZK_ERANGE; c <= CUZK_OK; c++) {
        const char *s = cuzk_strerror(c);
        assert_non_null(s);
        assert_null(strstr(s, "unknown"));
        for (int d = c + 1; d <= CUZK_OK; d++) assert_string_not_equal(s, cuzk_strerror(d));
    }
    assert_string_equal(cuzk_strerror(-1000), "unknown error");
    assert_string_equal(cuzk_strerror(7), "unknown error");
    assert_non_null(cuzk_last_error());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(every_code_has_a_distinct_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
