/*
 * kernels/ntt.h's H steps on the simulated device (simgpu.h): the same six transforms as the
 * device (h = (cosetINTT(A·B on the coset) - INTT(c)) / (g^n - 1), every one of the n values,
 * h[n-1] included) by the CPU NTT, in the device buffers themselves, with the device's order
 * of copies, range checks, fills and gate passes (the lean step's hook: see there), so a caller
 * sees the same contract: the same outputs (bit for bit: the field is exact), the same errors,
 * the same pacing.
 */
#include "simgpu.h"

#include <stdint.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "ntt.h"
#include "ntt/ntt_cpu.h"
#include "prep.h"
#include "sim_ntt.h"

#define FR_BYTES sizeof(fr_t)

/* ---- the transforms, in the device's stages (kernels/ntt/h_step.cu) ---- */

/* a or b: its coefficients, then its values on the coset g·ω^i */
static void to_coset(fr_t *x, unsigned L)
{
    ntt_inverse(x, L, NULL);
    ntt_coset_forward(x, L, NULL);
}

/* b's stage up to the product: y := A·B on the coset (x holds A there) */
static void run_b_head(fr_t *y, const fr_t *x, unsigned L)
{
    to_coset(y, L);
    for (uint64_t i = 0, n = 1ull << L; i < n; i++) fr_mul(&y[i], &y[i], &x[i]);
}

/* the passes of A·B's inverse that read neither A nor c: its coefficients mod X^n - g^n */
static void run_b_mid(fr_t *y, unsigned L) { ntt_coset_inverse(y, L, NULL); }

/* c: its coefficients (natural order, as the lean step's permutation leaves them) */
static void run_c(fr_t *c, unsigned L) { ntt_inverse(c, L, NULL); }

/* the last pass: out[k] = (ab[k] - c[k]) / (g^n - 1) for every k < n; out may be ab or c */
static void run_b_last(fr_t *out, const fr_t *ab, const fr_t *c, unsigned L)
{
    const uint64_t n = 1ull << L;
    fr_t z;
    fr_pow_u64(&z, &FR_COSET_GEN, n);
    fr_sub(&z, &z, &FR_ONE);
    fr_inv(&z, &z);
    for (uint64_t k = 0; k < n; k++) {
        fr_t t;
        fr_sub(&t, &ab[k], &c[k]);
        fr_mul(&out[k], &t, &z);
    }
}

/* ---- arguments ---- */

static int domain_ok(unsigned log_n)
{
    if (log_n < 1 || log_n > SIM_NTT_MAX_LOG)
        return err_set(CUZK_EINVAL, "H step domain 2^%u is outside 2^1..2^%d", log_n, SIM_NTT_MAX_LOG);
    return CUZK_OK;
}

static int three_ok(const void *a, const void *b, const void *c, unsigned log_n)
{
    int rc = domain_ok(log_n);
    if (rc) return rc;
    if (!a || !b || !c) return err_set(CUZK_EINVAL, "H step: NULL device buffer");
    if (a == b || a == c || b == c) return err_set(CUZK_EINVAL, "H step: a, b and c must be distinct buffers");
    return CUZK_OK;
}

static int two_ok(const void *x, const void *y, unsigned log_n)
{
    int rc = domain_ok(log_n);
    if (rc) return rc;
    if (!x || !y || x == y) return err_set(CUZK_EINVAL, "H step: two distinct device buffers are needed");
    return CUZK_OK;
}

static int len_ok(uint64_t len, unsigned log_n)
{
    if (len > (1ull << log_n))
        return err_set(CUZK_EINVAL, "H step: %llu values do not fit the domain 2^%u", (unsigned long long)len, log_n);
    return CUZK_OK;
}

static int hosts_ok(const void *a, const void *b, const void *c)
{
    return a && b && c ? CUZK_OK : err_set(CUZK_EINVAL, "H step: NULL host buffer");
}

/* ---- inputs ---- */

/* len host values into d on the copy stream, zero-padded to the domain */
static int copy_in(void *d, const void *host, uint64_t len, unsigned L, void *cp)
{
    const uint64_t n = 1ull << L;
    int rc = gpu_memcpy_async(d, host, len * FR_BYTES, cp);
    if (!rc && len < n) rc = gpu_memset_async((fr_t *)d + len, 0, (n - len) * FR_BYTES, cp);
    return rc;
}

/* once arrived: range-checked into d_res under tag (and converted when canonical), if asked */
static int check_in(void *d, uint64_t len, unsigned tag, int canonical, gpu_prep_result *d_res, void *st)
{
    if (!d_res && !canonical) return CUZK_OK;
    if (!d_res) return err_set(CUZK_EINVAL, "H step: canonical inputs need a check result");
    return gpu_prep_check(d, len, tag, canonical, d_res, st);
}

/* input i of a filled step: fill's len values, zero-padded on the stream */
static int fill_in(void *d, int input, uint64_t len, unsigned L, gpu_h_fill_fn fill, void *user, void *st)
{
    const uint64_t n = 1ull << L;
    int rc = fill(user, input, d, st);
    if (!rc && len < n) rc = gpu_memset_async((fr_t *)d + len, 0, (n - len) * FR_BYTES, st);
    return rc;
}

/* ---- the steps ---- */

int gpu_h_step(void *d_a, void *d_b, void *d_c, unsigned log_n, void *stream)
{
    int rc = three_ok(d_a, d_b, d_c, log_n);
    if (rc || (rc = sim_ntt_tables(log_n))) return rc;
    (void)stream;
    fr_t *a = d_a, *b = d_b, *c = d_c;
    to_coset(a, log_n);
    run_b_head(b, a, log_n);
    run_b_mid(b, log_n);
    run_c(c, log_n);
    run_b_last(a, b, c, log_n);
    return CUZK_OK;
}

int gpu_h_step_from_host(void *d_a, void *d_b, void *d_c, const void *a, const void *b, const void *c, uint64_t len,
                         unsigned log_n, void *stream, void *copy_stream)
{
    return gpu_h_step_from_host_checked(d_a, d_b, d_c, a, b, c, len, log_n, 0, NULL, NULL, stream, copy_stream);
}

int gpu_h_step_from_host_checked(void *d_a, void *d_b, void *d_c, const void *a, const void *b, const void *c,
                                 uint64_t len, unsigned log_n, int canonical, gpu_prep_result *d_res,
                                 const struct gpu_gate *gate, void *stream, void *copy_stream)
{
    int rc = three_ok(d_a, d_b, d_c, log_n);
    if (rc || (rc = hosts_ok(a, b, c)) || (rc = len_ok(len, log_n)) || (rc = sim_ntt_tables(log_n))) return rc;
    void *dev[3] = {d_a, d_b, d_c};
    const void *host[3] = {a, b, c};
    fr_t *da = d_a, *db = d_b, *dc = d_c;
    /* as the device: each input copied, the gate passed (from the second on: the thread
     * waits there for the transform before), checked, transformed */
    for (int i = 0; i < 3; i++) {
        if ((rc = copy_in(dev[i], host[i], len, log_n, copy_stream))) return rc;
        if (i && (rc = gpu_gate_pass(gate, stream))) return rc;
        if ((rc = check_in(dev[i], len, (unsigned)i, canonical, d_res, stream))) return rc;
        if (i == 0) to_coset(da, log_n);
        else if (i == 1) run_b_head(db, da, log_n), run_b_mid(db, log_n);
        else run_c(dc, log_n);
    }
    if ((rc = gpu_gate_pass(gate, stream))) return rc;
    run_b_last(da, db, dc, log_n);
    return CUZK_OK;
}

int gpu_h_step_from_host_lean(void *d_x, void *d_y, const void *a, const void *b, const void *c, uint64_t len,
                              unsigned log_n, int canonical, gpu_prep_result *d_res, const struct gpu_gate *gate,
                              const gpu_h_hook *ab_arrived, void *stream, void *copy_stream)
{
    int rc = two_ok(d_x, d_y, log_n);
    if (rc || (rc = hosts_ok(a, b, c)) || (rc = len_ok(len, log_n)) || (rc = sim_ntt_tables(log_n))) return rc;
    fr_t *x = d_x, *y = d_y;
    /* the event of a's and b's arrival on the copy stream, as the device's hook gets it (the
     * caller orders its own copies after it: gpu_stream_wait_event) */
    void *ev = NULL;
    if ((rc = gpu_event_create_sync_only(&ev))) return rc;
    /* The device calls the hook once A's transforms are enqueued, long before they have run;
     * here enqueued is done, so A's transforms come after the hook: the hook's work waits for
     * the copies only, and a device may run it before A's transforms just as well. b's check
     * reads b alone (and the result's minimum commutes), so it may come before them too. */
    if (!(rc = copy_in(x, a, len, log_n, copy_stream)) && !(rc = check_in(x, len, 0, canonical, d_res, stream)) &&
        !(rc = copy_in(y, b, len, log_n, copy_stream)) && !(rc = gpu_event_record(ev, copy_stream)))
        rc = check_in(y, len, 1, canonical, d_res, stream);
    if (!rc && ab_arrived && ab_arrived->fn) rc = ab_arrived->fn(ab_arrived->user, ev);
    if (!rc) to_coset(x, log_n);
    /* the gate after the hook: a caller's prefetch is not held back by it */
    if (!rc) rc = gpu_gate_pass(gate, stream);
    if (!rc) {
        run_b_head(y, x, log_n); /* x is free for c from here */
        rc = gpu_gate_pass(gate, stream);
    }
    if (!rc) {
        run_b_mid(y, log_n);
        rc = copy_in(x, c, len, log_n, copy_stream);
    }
    if (!rc) rc = check_in(x, len, 2, canonical, d_res, stream);
    if (!rc) rc = gpu_gate_pass(gate, stream);
    if (!rc) {
        run_c(x, log_n);
        rc = gpu_gate_pass(gate, stream);
    }
    if (!rc) run_b_last(x, y, x, log_n);
    gpu_event_destroy(ev);
    return rc;
}

static int filled_ok(uint64_t len, unsigned log_n, gpu_h_fill_fn fill)
{
    if (!fill) return err_set(CUZK_EINVAL, "H step: no fill function");
    int rc = len_ok(len, log_n);
    return rc ? rc : sim_ntt_tables(log_n);
}

int gpu_h_step_filled(void *d_a, void *d_b, void *d_c, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user,
                      const struct gpu_gate *gate, void *stream)
{
    int rc = three_ok(d_a, d_b, d_c, log_n);
    if (rc || (rc = filled_ok(len, log_n, fill))) return rc;
    fr_t *a = d_a, *b = d_b, *c = d_c;
    if ((rc = fill_in(a, 0, len, log_n, fill, user, stream))) return rc;
    to_coset(a, log_n);
    if ((rc = gpu_gate_pass(gate, stream)) || (rc = fill_in(b, 1, len, log_n, fill, user, stream))) return rc;
    run_b_head(b, a, log_n);
    run_b_mid(b, log_n);
    if ((rc = gpu_gate_pass(gate, stream)) || (rc = fill_in(c, 2, len, log_n, fill, user, stream))) return rc;
    run_c(c, log_n);
    if ((rc = gpu_gate_pass(gate, stream))) return rc;
    run_b_last(a, b, c, log_n);
    return CUZK_OK;
}

int gpu_h_step_filled_lean(void *d_x, void *d_y, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user,
                           const struct gpu_gate *gate, void *stream)
{
    int rc = two_ok(d_x, d_y, log_n);
    if (rc || (rc = filled_ok(len, log_n, fill))) return rc;
    fr_t *x = d_x, *y = d_y;
    if ((rc = fill_in(x, 0, len, log_n, fill, user, stream))) return rc;
    to_coset(x, log_n);
    if ((rc = gpu_gate_pass(gate, stream)) || (rc = fill_in(y, 1, len, log_n, fill, user, stream))) return rc;
    run_b_head(y, x, log_n);
    if ((rc = gpu_gate_pass(gate, stream))) return rc;
    run_b_mid(y, log_n);
    /* c into x, free since the product */
    if ((rc = fill_in(x, 2, len, log_n, fill, user, stream)) || (rc = gpu_gate_pass(gate, stream))) return rc;
    run_c(x, log_n);
    if ((rc = gpu_gate_pass(gate, stream))) return rc;
    run_b_last(x, y, x, log_n);
    return CUZK_OK;
}
