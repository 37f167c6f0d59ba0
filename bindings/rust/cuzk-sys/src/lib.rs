//! Raw declarations of libcuzk's public headers, `include/cuzk/cuzk.h` and
//! `include/cuzk/r1cs.h`: every function, struct and constant, named as in C. Nothing here
//! is safe to call without reading the header's contract next to each declaration; the
//! `cuzk` crate wraps them.
//!
//! Kept in step with the headers by test/test_bindings_rust.sh: every function and constant
//! the headers declare must appear here, and the struct layouts are compared with what a C
//! compiler makes of the header (`cargo run --example layout`).
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

// ---- version ------------------------------------------------------------------------------
/// The header version these declarations were written against (major, minor, patch).
pub const CUZK_VERSION_MAJOR: u32 = 0;
pub const CUZK_VERSION_MINOR: u32 = 4;
pub const CUZK_VERSION_PATCH: u32 = 0;
pub const CUZK_VERSION_NUMBER: u32 = CUZK_VERSION_MAJOR * 10000 + CUZK_VERSION_MINOR * 100 + CUZK_VERSION_PATCH;

// ---- error codes (never renumbered or reused) ---------------------------------------------
pub const CUZK_OK: c_int = 0;
pub const CUZK_EINVAL: c_int = -1;
pub const CUZK_ENOMEM: c_int = -2;
pub const CUZK_EAGAIN: c_int = -3;
pub const CUZK_ECANCELED: c_int = -4;
pub const CUZK_EFORMAT: c_int = -5;
pub const CUZK_EMISMATCH: c_int = -6;
pub const CUZK_EBUDGET: c_int = -7;
pub const CUZK_EDEVICE: c_int = -8;
pub const CUZK_EVERIFY: c_int = -9;
pub const CUZK_ESHUTDOWN: c_int = -10;
pub const CUZK_EIO: c_int = -11;
pub const CUZK_ENOTFOUND: c_int = -12;
pub const CUZK_ERANGE: c_int = -13;

// ---- scalars ------------------------------------------------------------------------------
pub const CUZK_FR_MONTGOMERY: i32 = 0;
pub const CUZK_FR_CANONICAL: i32 = 1;

/// One element of Fr: four little-endian 64-bit limbs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct cuzk_fr {
    pub l: [u64; 4],
}

// ---- partitions and results ---------------------------------------------------------------
pub type cuzk_job = u64;

/// The smallest `struct_size` cuzk_submit_partition accepts (0.1.0's layout, LP64).
pub const CUZK_PARTITION_SIZE_V1: u32 = 144;
/// The size of `cuzk_result` as published in 0.1.0 (everything before `detail`).
pub const CUZK_RESULT_SIZE_V1: u32 = 248;
/// The size of `cuzk_trace_event` as published in 0.1.0.
pub const CUZK_TRACE_EVENT_SIZE_V1: u32 = 56;
/// The size of `cuzk_stats` as published in 0.1.0.
pub const CUZK_STATS_SIZE_V1: u32 = 160;
/// The size of `cuzk_placement` as published in 0.3 (its first version).
pub const CUZK_PLACEMENT_SIZE_V1: u32 = 144;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cuzk_partition {
    pub struct_size: u32,
    pub scalar_form: i32,
    pub a: *const cuzk_fr,
    pub b: *const cuzk_fr,
    pub c: *const cuzk_fr,
    pub abc_len: u64,
    pub inputs: *const cuzk_fr,
    pub num_inputs: u64,
    pub aux: *const cuzk_fr,
    pub num_aux: u64,
    pub a_aux_density: *const u64,
    pub b_input_density: *const u64,
    pub b_aux_density: *const u64,
    pub r: *const cuzk_fr,
    pub s: *const cuzk_fr,
    pub priority: i32,
    pub reserved: u32,
    pub user_tag: u64,
    pub release: Option<unsafe extern "C" fn(release_user: *mut c_void)>,
    pub release_user: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cuzk_result {
    pub struct_size: u32,
    pub status: i32,
    pub job: cuzk_job,
    pub user_tag: u64,
    pub proof: [u8; 192],
    pub device: i32,
    pub reserved: u32,
    pub queued_ns: u64,
    pub device_ns: u64,
    pub total_ns: u64,
    // --- end of CUZK_RESULT_SIZE_V1; added in 0.2 (a 0.1 library leaves it untouched) ---
    /// Why the job failed, NUL-terminated; "" when status is CUZK_OK.
    pub detail: [c_char; 256],
}

// ---- trace events -------------------------------------------------------------------------
pub const CUZK_TRACE_SUBMIT: i32 = 1;
pub const CUZK_TRACE_QUEUE_WAIT: i32 = 2;
pub const CUZK_TRACE_BUDGET_WAIT: i32 = 3;
pub const CUZK_TRACE_H2D_COPY: i32 = 4;
pub const CUZK_TRACE_NTT_INTT: i32 = 5;
pub const CUZK_TRACE_NTT_COSET: i32 = 6;
pub const CUZK_TRACE_NTT_COSET_INTT: i32 = 7;
pub const CUZK_TRACE_H_STEP: i32 = 8;
pub const CUZK_TRACE_MSM_H: i32 = 9;
pub const CUZK_TRACE_MSM_L: i32 = 10;
pub const CUZK_TRACE_MSM_A: i32 = 11;
pub const CUZK_TRACE_MSM_B_G1: i32 = 12;
pub const CUZK_TRACE_MSM_B_G2: i32 = 13;
pub const CUZK_TRACE_MSM_ALL: i32 = 14;
pub const CUZK_TRACE_ASSEMBLY: i32 = 15;
pub const CUZK_TRACE_VERIFY: i32 = 16;
pub const CUZK_TRACE_RELEASE: i32 = 17;
pub const CUZK_TRACE_ARENA_TRIM: i32 = 18;
pub const CUZK_TRACE_DEVICE_IDLE: i32 = 19;
pub const CUZK_TRACE_START: i32 = 20;
pub const CUZK_TRACE_FINISH: i32 = 21;
pub const CUZK_TRACE_RESULT: i32 = 22;
pub const CUZK_TRACE_HOST_PREP: i32 = 23;
pub const CUZK_TRACE_CS_EVAL: i32 = 24;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cuzk_trace_event {
    pub struct_size: u32,
    pub kind: i32,
    pub device: i32,
    pub worker: i32,
    pub job: u64,
    pub user_tag: u64,
    pub begin_ns: u64,
    pub end_ns: u64,
    pub bytes: u64,
}

pub type cuzk_trace_fn = Option<unsafe extern "C" fn(event: *const cuzk_trace_event, user: *mut c_void)>;

// ---- configuration ------------------------------------------------------------------------
pub const CUZK_OPT_BACKEND: i32 = 1;
pub const CUZK_OPT_DEVICE_MASK: i32 = 2;
pub const CUZK_OPT_WORKERS_PER_DEVICE: i32 = 3;
pub const CUZK_OPT_CPU_THREADS: i32 = 4;
pub const CUZK_OPT_HOST_BUDGET_BYTES: i32 = 5;
pub const CUZK_OPT_DEVICE_BUDGET_BYTES: i32 = 6;
pub const CUZK_OPT_QUEUE_CAPACITY: i32 = 7;
pub const CUZK_OPT_VERIFY: i32 = 8;
pub const CUZK_OPT_FINISHER_THREADS: i32 = 9;
pub const CUZK_OPT_TRACE_CAPACITY: i32 = 10;
pub const CUZK_OPT_IDLE_SPIN_NS: i32 = 11;
pub const CUZK_OPT_RETRY_ON_CPU: i32 = 12;
pub const CUZK_OPT_URGENT_PRIORITY: i32 = 13;

pub const CUZK_BACKEND_AUTO: i32 = 0;
pub const CUZK_BACKEND_CPU: i32 = 1;
pub const CUZK_BACKEND_CUDA: i32 = 2;

pub const CUZK_SRS_CHECK_SUBGROUP: u32 = 1;
pub const CUZK_SRS_PIN: u32 = 2;
pub const CUZK_SRS_URGENT: u32 = 4;

pub const CUZK_PLACEMENT_RESIDENT: i32 = 0;
pub const CUZK_PLACEMENT_PARTIAL: i32 = 1;
pub const CUZK_PLACEMENT_STREAMED: i32 = 2;
pub const CUZK_PLACEMENT_HOST: i32 = 3;
pub const CUZK_WORKING_SET_FULL: i32 = 0;
pub const CUZK_WORKING_SET_LEAN: i32 = 1;

/// Where a key's bases live on one GPU (cuzk_srs_placement).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cuzk_placement {
    pub struct_size: u32,
    pub device: i32,
    pub kind: i32,
    pub working_set: i32,
    pub slots: u32,
    pub reserved: u32,
    pub slot_bytes: u64,
    pub device_budget_bytes: u64,
    pub resident_bytes: u64,
    pub streamed_bytes: u64,
    pub pinned_host_bytes: u64,
    pub vector_bytes: [u64; 5],
    pub vector_resident_bytes: [u64; 5],
}

// ---- opaque handles -----------------------------------------------------------------------
// Zero-sized, unconstructible, and neither Send, Sync nor Unpin by themselves: raw pointers to
// them say nothing about threads; the safe crate states what holds for its wrappers.
macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}
opaque!(cuzk_config, cuzk_engine, cuzk_srs, cuzk_r1cs, cuzk_cs);

// ---- stats --------------------------------------------------------------------------------
/// The engine's counters at one moment (read one by one, not as one atomic snapshot). The
/// safe crate's `cuzk::Stats` reads them through `Deref` to this struct.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cuzk_stats {
    pub struct_size: u32,
    /// `CUZK_BACKEND_CPU` or `CUZK_BACKEND_CUDA`.
    pub backend: i32,
    /// GPUs in use (0 on the CPU backend) and proving threads.
    pub devices: u32,
    pub workers: u32,
    /// Jobs accepted; results posted with CUZK_OK, with another error, canceled, failing the
    /// self-check.
    pub submitted: u64,
    pub completed: u64,
    pub failed: u64,
    pub canceled: u64,
    pub verify_failed: u64,
    /// Jobs waiting for a worker, being proved, waiting to be polled — now.
    pub queued: u64,
    pub running: u64,
    pub unpolled: u64,
    pub queue_capacity: u64,
    pub host_budget_bytes: u64,
    /// Now, witness memory (`cuzk_host_alloc`) included.
    pub host_reserved_bytes: u64,
    pub host_reserved_peak: u64,
    /// Held in `cuzk_host_alloc` blocks now.
    pub host_alloc_bytes: u64,
    /// Partitions that waited for memory.
    pub budget_waits: u64,
    /// Trace events delivered to the callback, and dropped because its ring was full.
    pub trace_events: u64,
    pub trace_dropped: u64,
    pub arena_collects: u64,
    pub arena_bytes: u64,
    /// Host memory of the loaded constraint systems (0.4; not in the host budget).
    pub cs_host_bytes: u64,
    pub cs_device_bytes: u64,
}

// ---- constraint systems and witness-only partitions (0.4) ----------------------------------
pub const CUZK_CS_INFO_SIZE_V1: u32 = 72;
pub const CUZK_WITNESS_PARTITION_SIZE_V1: u32 = 88;
/// cuzk_cs_load flag: stream the matrices from host memory on CUDA, whatever fits.
pub const CUZK_CS_STREAM: u32 = 1;

/// What a loaded constraint system holds (cuzk_cs_get_info).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cuzk_cs_info {
    pub struct_size: u32,
    pub num_coeffs: u32,
    pub num_inputs: u64,
    pub num_aux: u64,
    pub num_constraints: u64,
    pub abc_len: u64,
    pub nnz: [u64; 3],
    pub host_bytes: u64,
    pub device_bytes: u64,
    pub resident_devices: u32,
    pub streamed_devices: u32,
}

/// A partition given as its witness only (cuzk_submit_witness): borrowed until `release`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cuzk_witness_partition {
    pub struct_size: u32,
    pub scalar_form: i32,
    pub inputs: *const cuzk_fr,
    pub num_inputs: u64,
    pub aux: *const cuzk_fr,
    pub num_aux: u64,
    pub r: *const cuzk_fr,
    pub s: *const cuzk_fr,
    pub priority: i32,
    pub reserved: u32,
    pub user_tag: u64,
    pub release: Option<unsafe extern "C" fn(release_user: *mut c_void)>,
    pub release_user: *mut c_void,
}

extern "C" {
    // version and errors
    pub fn cuzk_version_number() -> u32;
    pub fn cuzk_version_string() -> *const c_char;
    pub fn cuzk_strerror(code: c_int) -> *const c_char;
    pub fn cuzk_last_error() -> *const c_char;

    // configuration
    pub fn cuzk_config_new(out: *mut *mut cuzk_config) -> c_int;
    pub fn cuzk_config_free(cfg: *mut cuzk_config);
    pub fn cuzk_config_set(cfg: *mut cuzk_config, option: i32, value: i64) -> c_int;
    pub fn cuzk_config_get(cfg: *const cuzk_config, option: i32, value: *mut i64) -> c_int;
    pub fn cuzk_config_set_trace(cfg: *mut cuzk_config, f: cuzk_trace_fn, user: *mut c_void) -> c_int;

    // engine and keys
    pub fn cuzk_engine_create(cfg: *const cuzk_config, out: *mut *mut cuzk_engine) -> c_int;
    pub fn cuzk_engine_destroy(engine: *mut cuzk_engine);
    pub fn cuzk_srs_load(
        engine: *mut cuzk_engine,
        params_path: *const c_char,
        flags: u32,
        out: *mut *mut cuzk_srs,
    ) -> c_int;
    pub fn cuzk_srs_release(srs: *mut cuzk_srs);

    // constraint systems and witness-only partitions (0.4)
    pub fn cuzk_cs_load(engine: *mut cuzk_engine, path: *const c_char, flags: u32, out: *mut *mut cuzk_cs) -> c_int;
    pub fn cuzk_cs_release(cs: *mut cuzk_cs);
    pub fn cuzk_cs_get_info(cs: *mut cuzk_cs, out: *mut cuzk_cs_info) -> c_int;
    pub fn cuzk_cs_convert(r1cs_path: *const c_char, out_path: *const c_char) -> c_int;
    pub fn cuzk_submit_witness(
        engine: *mut cuzk_engine,
        srs: *mut cuzk_srs,
        cs: *mut cuzk_cs,
        w: *const cuzk_witness_partition,
        out: *mut cuzk_job,
    ) -> c_int;

    // proving
    pub fn cuzk_submit_partition(
        engine: *mut cuzk_engine,
        srs: *mut cuzk_srs,
        p: *const cuzk_partition,
        out: *mut cuzk_job,
    ) -> c_int;
    pub fn cuzk_poll_result(engine: *mut cuzk_engine, out: *mut cuzk_result, timeout_ns: i64) -> c_int;
    pub fn cuzk_cancel(engine: *mut cuzk_engine, job: cuzk_job) -> c_int;
    pub fn cuzk_engine_stats(engine: *mut cuzk_engine, out: *mut cuzk_stats) -> c_int;
    pub fn cuzk_srs_placement(srs: *mut cuzk_srs, device_index: u32, out: *mut cuzk_placement) -> c_int;
    pub fn cuzk_stats_format_prometheus(
        stats: *const cuzk_stats,
        device_busy_ns: *const u64,
        n_devices: u32,
        buf: *mut c_char,
        len: usize,
        written: *mut usize,
    ) -> c_int;
    pub fn cuzk_host_alloc(engine: *mut cuzk_engine, bytes: usize, out: *mut *mut c_void) -> c_int;
    pub fn cuzk_host_free(engine: *mut cuzk_engine, p: *mut c_void);

    // verification
    pub fn cuzk_verify(
        vk: *const u8,
        vk_len: usize,
        proof: *const u8,
        public_inputs: *const cuzk_fr,
        n: usize,
        scalar_form: i32,
    ) -> c_int;

    // cuzk/r1cs.h: circom files and the TEST-ONLY setup
    pub fn cuzk_r1cs_load(path: *const c_char, out: *mut *mut cuzk_r1cs) -> c_int;
    pub fn cuzk_r1cs_free(r1cs: *mut cuzk_r1cs);
    pub fn cuzk_wtns_load(path: *const c_char, values: *mut *mut cuzk_fr, count: *mut u64) -> c_int;
    pub fn cuzk_r1cs_partition(
        r1cs: *const cuzk_r1cs,
        witness: *const cuzk_fr,
        count: u64,
        out: *mut cuzk_partition,
    ) -> c_int;
    pub fn cuzk_setup(
        r1cs: *const cuzk_r1cs,
        seed: *const u8,
        params_path: *const c_char,
        vk_path: *const c_char,
    ) -> c_int;
    pub fn cuzk_free(p: *mut c_void);
}
