/* Error codes' names and the thread-local detail behind cuzk_last_error(). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char tls_detail[512];

int err_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_detail, sizeof tls_detail, fmt, ap);
    va_end(ap);
    return code;
}

void err_clear(void) { tls_detail[0] = '\0'; }

const char *err_detail(void) { return tls_detail; }

CUZK_API const char *cuzk_last_error(void) { return tls_detail; }

CUZK_API const char *cuzk_strerror(int code)
{
    switch (code) {
    case CUZK_OK: return "CUZK_OK: success";
    case CUZK_EINVAL: return "CUZK_EINVAL: invalid argument";
    case CUZK_ENOMEM: return "CUZK_ENOMEM: out of host memory";
    case CUZK_EAGAIN: return "CUZK_EAGAIN: nothing ready, try again";
    case CUZK_ECANCELED: return "CUZK_ECANCELED: job canceled";
    case CUZK_EFORMAT: return "CUZK_EFORMAT: malformed data";
    case CUZK_EMISMATCH: return "CUZK_EMISMATCH: sizes do not match";
    case CUZK_EBUDGET: return "CUZK_EBUDGET: memory budget exceeded";
    case CUZK_EDEVICE: return "CUZK_EDEVICE: GPU device error";
    case CUZK_EVERIFY: return "CUZK_EVERIFY: proof does not verify";
    case CUZK_ESHUTDOWN: return "CUZK_ESHUTDOWN: engine shutting down";
    case CUZK_EIO: return "CUZK_EIO: I/O error";
    case CUZK_ENOTFOUND: return "CUZK_ENOTFOUND: no such job or handle";
    case CUZK_ERANGE: return "CUZK_ERANGE: output buffer too small";
    default: return "unknown error";
    }
}
