/* The version of the library actually loaded, for hosts to compare with the header's. */
#include "cuzk/cuzk.h"

#define STR_(x) #x
#define STR(x) STR_(x)

CUZK_API uint32_t cuzk_version_number(void) { return CUZK_VERSION_NUMBER; }

CUZK_API const char *cuzk_version_string(void)
{
    return STR(CUZK_VERSION_MAJOR) "." STR(CUZK_VERSION_MINOR) "." STR(CUZK_VERSION_PATCH);
}
