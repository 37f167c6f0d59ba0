/*
 * TEST ONLY: the trivial backend (backend_trivial.c), a prover that does no arithmetic, for
 * the engine's tests and cuzk-bench engine. Not part of libcuzk: tests and the bench link it
 * from test/support and hand it to engine_create_with_backend.
 */
#ifndef CUZK_TEST_BACKEND_TRIVIAL_H
#define CUZK_TEST_BACKEND_TRIVIAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "backend/backend.h"

extern const backend_ops backend_trivial_ops;

/* Trivial keys loaded and not yet freed by their engine (all engines of the process). */
int64_t backend_trivial_keys_live(void);

#endif
