/*
 * Internal error reporting: every failing path sets the thread-local detail that
 * cuzk_last_error() returns and hands back the code, in one call:
 *     return err_set(CUZK_EFORMAT, "h has %u points at offset %zu, expected %u", ...);
 */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#include "cuzk/cuzk.h"

int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void err_clear(void);
/* The current detail (for wrapping: err_set(code, "loading key: %s", err_detail())). */
const char *err_detail(void);
/* What a public call returns: on CUZK_OK the thread's detail is cleared, so a success never
 * leaves an earlier failure's text behind in cuzk_last_error(). */
static inline int err_done(int rc)
{
    if (rc == CUZK_OK) err_clear();
    return rc;
}

#endif
