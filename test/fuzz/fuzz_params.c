/* libFuzzer harness: groth16_params_parse on arbitrary bytes (a .params proving key),
 * with and without the subgroup check; a parsed key is freed (LeakSanitizer watches). */
#include <stdint.h>
#include <stdlib.h>

#include "groth16/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int check = data[0] & 1;
    groth16_params *p = NULL;
    int rc = groth16_params_parse(data + 1, size - 1, check, NULL, &p);
    if (rc == CUZK_OK) {
        if (!p) abort();
        groth16_params_free(p);
    } else if (p) {
        abort(); /* no key on failure */
    }
    return 0;
}
