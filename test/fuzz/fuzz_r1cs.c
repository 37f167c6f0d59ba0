/* libFuzzer harness: the circom .r1cs reader (cuzk_r1cs_load over a memfd). */
#include <stdint.h>
#include <stdlib.h>

#include "cuzk/r1cs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfd_path(data, size, path);
    if (fd < 0) return 0;
    cuzk_r1cs *r = NULL;
    if (cuzk_r1cs_load(path, &r) == CUZK_OK) cuzk_r1cs_free(r);
    close(fd);
    return 0;
}
