/* libFuzzer harness: the zcash point decoders g1_decode/g2_decode at every length they
 * accept (48/96 for G1, 96/192 for G2) and at wrong lengths. The first byte picks the
 * group, length and subgroup check; a decoded point must re-encode to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field/curve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t sel = data[0];
    data++, size--;
    int check = sel & 1;
    uint8_t buf[192];
    if ((sel >> 1) & 1) { /* G2 */
        size_t len = (sel >> 2) & 1 ? 192 : 96;
        if ((sel >> 3) & 1) len = size < 200 ? size : 200; /* arbitrary length too */
        if (size < len) return 0;
        g2_aff p;
        int rc = g2_decode(&p, data, len, check);
        if (rc == 0 && (len == 96 || len == 192)) {
            if (len == 96) g2_encode_compressed(buf, &p); else g2_encode_uncompressed(buf, &p);
            if (memcmp(buf, data, len)) abort();
            if (check && !g2_aff_in_subgroup(&p)) abort();
        }
        (void)point_strerror(rc);
    } else { /* G1 */
        size_t len = (sel >> 2) & 1 ? 96 : 48;
        if ((sel >> 3) & 1) len = size < 100 ? size : 100;
        if (size < len) return 0;
        g1_aff p;
        int rc = g1_decode(&p, data, len, check);
        if (rc == 0 && (len == 48 || len == 96)) {
            if (len == 48) g1_encode_compressed(buf, &p); else g1_encode_uncompressed(buf, &p);
            if (memcmp(buf, data, len)) abort();
            if (check && !g1_aff_in_subgroup(&p)) abort();
        }
        (void)point_strerror(rc);
    }
    return 0;
}
