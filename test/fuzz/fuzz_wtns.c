/* libFuzzer harness: the snarkjs .wtns reader (cuzk_wtns_load over a memfd). */
#include <stdint.h>
#include <stdlib.h>

#include "cuzk/r1cs.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfd_path(data, size, path);
    if (fd < 0) return 0;
    cuzk_fr *v = NULL;
    uint64_t n = 0;
    if (cuzk_wtns_load(path, &v, &n) == CUZK_OK) cuzk_free(v);
    close(fd);
    return 0;
}
