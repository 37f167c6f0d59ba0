/* Engines for tests (see testengine.h). */
#include "support/testengine.h"

#include <stdio.h>

cuzk_engine *test_engine_opts(const test_opt *opts, size_t n)
{
    cuzk_config *cfg = NULL;
    cuzk_engine *e = NULL;
    int rc = cuzk_config_new(&cfg);
    for (size_t i = 0; rc == CUZK_OK && i < n; i++)
        if ((rc = cuzk_config_set(cfg, opts[i].opt, opts[i].value)) != CUZK_OK)
            fprintf(stderr, "test engine: option %d = %lld: %s\n", (int)opts[i].opt, (long long)opts[i].value,
                    cuzk_last_error());
    if (rc == CUZK_OK && (rc = cuzk_engine_create(cfg, &e)) != CUZK_OK)
        fprintf(stderr, "test engine: cuzk_engine_create: %s (%s)\n", cuzk_strerror(rc), cuzk_last_error());
    cuzk_config_free(cfg); /* infallible: the detail above stays for the caller */
    return rc == CUZK_OK ? e : NULL;
}
