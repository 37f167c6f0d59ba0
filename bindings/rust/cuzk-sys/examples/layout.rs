//! Prints every declared struct's size and member offsets, one "NAME VALUE" a line, so
//! test/test_bindings_rust.sh can compile the same lines as C (offsetof/sizeof over the
//! real header) and diff them: a member missing, misplaced or mistyped here shows up there.
use cuzk_sys::*;
use std::mem::{offset_of, size_of};

macro_rules! layout {
    ($($s:ident { $($m:ident),* })*) => {$(
        println!("{} sizeof {}", stringify!($s), size_of::<$s>());
        $(println!("{}.{} offsetof {}", stringify!($s), stringify!($m), offset_of!($s, $m));)*
    )*};
}

fn main() {
    layout! {
        cuzk_fr { l }
        cuzk_partition { struct_size, scalar_form, a, b, c, abc_len, inputs, num_inputs, aux, num_aux,
                         a_aux_density, b_input_density, b_aux_density, r, s, priority, reserved, user_tag,
                         release, release_user }
        cuzk_result { struct_size, status, job, user_tag, proof, device, reserved, queued_ns, device_ns,
                      total_ns, detail }
        cuzk_trace_event { struct_size, kind, device, worker, job, user_tag, begin_ns, end_ns, bytes }
        cuzk_stats { struct_size, backend, devices, workers, submitted, completed, failed, canceled,
                     verify_failed, queued, running, unpolled, queue_capacity, host_budget_bytes,
                     host_reserved_bytes, host_reserved_peak, host_alloc_bytes, budget_waits, trace_events,
                     trace_dropped, arena_collects, arena_bytes, cs_host_bytes, cs_device_bytes }
        cuzk_placement { struct_size, device, kind, working_set, slots, reserved, slot_bytes, device_budget_bytes,
                         resident_bytes, streamed_bytes, pinned_host_bytes, vector_bytes, vector_resident_bytes }
        cuzk_cs_info { struct_size, num_coeffs, num_inputs, num_aux, num_constraints, abc_len, nnz, host_bytes,
                       device_bytes, resident_devices, streamed_devices }
        cuzk_witness_partition { struct_size, scalar_form, inputs, num_inputs, aux, num_aux, r, s, priority, reserved,
                                 user_tag, release, release_user }
    }
}
