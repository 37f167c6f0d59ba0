//! Raw declarations of include/cuzk/cuzk.h and include/cuzk/r1cs.h, kept in sync by
//! test/test_bindings_rust.sh (every header function is declared here and vice versa).
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub const CUZK_FR_MONTGOMERY: i32 = 0;
pub const CUZK_FR_CANONICAL: i32 = 1;
pub const CUZK_OPT_BACKEND: c_int = 1;
pub const CUZK_OPT_DEVICE_MASK: c_int = 2;
pub const CUZK_OPT_WORKERS_PER_DEVICE: c_int = 3;
pub const CUZK_OPT_CPU_THREADS: c_int = 4;
pub const CUZK_OPT_HOST_BUDGET_BYTES: c_int = 5;
pub const CUZK_OPT_QUEUE_CAPACITY: c_int = 7;
pub const CUZK_OPT_VERIFY: c_int = 8;
pub const CUZK_OPT_RETRY_ON_CPU: c_int = 12;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cuzk_fr {
    pub l: [u64; 4],
}

pub type cuzk_job = u64;

#[repr(C)]
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
    pub release: Option<unsafe extern "C" fn(*mut c_void)>,
    pub release_user: *mut c_void,
}

#[repr(C)]
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
}

#[repr(C)]
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

#[repr(C)]
#[derive(Default)]
pub struct cuzk_stats {
    pub struct_size: u32,
    pub backend: i32,
    pub devices: u32,
    pub workers: u32,
    pub submitted: u64,
    pub completed: u64,
    pub failed: u64,
    pub canceled: u64,
    pub verify_failed: u64,
    pub queued: u64,
    pub running: u64,
    pub unpolled: u64,
    pub queue_capacity: u64,
    pub host_budget_bytes: u64,
    pub host_reserved_bytes: u64,
    pub host_reserved_peak: u64,
    pub host_alloc_bytes: u64,
    pub budget_waits: u64,
    pub trace_events: u64,
    pub trace_dropped: u64,
    pub arena_collects: u64,
    pub arena_bytes: u64,
}

pub enum cuzk_config {}
pub enum cuzk_engine {}
pub enum cuzk_srs {}
pub enum cuzk_r1cs {}

pub type cuzk_trace_fn = Option<unsafe extern "C" fn(*const cuzk_trace_event, *mut c_void)>;

extern "C" {
    pub fn cuzk_version_number() -> u32;
    pub fn cuzk_version_string() -> *const c_char;
    pub fn cuzk_strerror(code: c_int) -> *const c_char;
    pub fn cuzk_last_error() -> *const c_char;
    pub fn cuzk_config_new(out: *mut *mut cuzk_config) -> c_int;
    pub fn cuzk_config_free(cfg: *mut cuzk_config);
    pub fn cuzk_config_set(cfg: *mut cuzk_config, opt: c_int, value: i64) -> c_int;
    pub fn cuzk_config_get(cfg: *const cuzk_config, opt: c_int, value: *mut i64) -> c_int;
    pub fn cuzk_config_set_trace(cfg: *mut cuzk_config, f: cuzk_trace_fn, user: *mut c_void) -> c_int;
    pub fn cuzk_engine_create(cfg: *const cuzk_config, out: *mut *mut cuzk_engine) -> c_int;
    pub fn cuzk_engine_destroy(engine: *mut cuzk_engine);
    pub fn cuzk_srs_load(engine: *mut cuzk_engine, path: *const c_char, flags: u32, out: *mut *mut cuzk_srs) -> c_int;
    pub fn cuzk_srs_release(srs: *mut cuzk_srs);
    pub fn cuzk_submit_partition(engine: *mut cuzk_engine, srs: *mut cuzk_srs, p: *const cuzk_partition, out: *mut cuzk_job) -> c_int;
    pub fn cuzk_poll_result(engine: *mut cuzk_engine, out: *mut cuzk_result, timeout_ns: i64) -> c_int;
    pub fn cuzk_cancel(engine: *mut cuzk_engine, job: cuzk_job) -> c_int;
    pub fn cuzk_engine_stats(engine: *mut cuzk_engine, out: *mut cuzk_stats) -> c_int;
    pub fn cuzk_stats_format_prometheus(stats: *const cuzk_stats, device_busy_ns: *const u64, n_devices: u32,
                                        buf: *mut c_char, len: usize, written: *mut usize) -> c_int;
    pub fn cuzk_host_alloc(engine: *mut cuzk_engine, bytes: usize, out: *mut *mut c_void) -> c_int;
    pub fn cuzk_host_free(engine: *mut cuzk_engine, p: *mut c_void);
    pub fn cuzk_verify(vk: *const u8, vk_len: usize, proof: *const u8, public_inputs: *const cuzk_fr, n: usize,
                       scalar_form: i32) -> c_int;
    // cuzk/r1cs.h
    pub fn cuzk_r1cs_load(path: *const c_char, out: *mut *mut cuzk_r1cs) -> c_int;
    pub fn cuzk_r1cs_free(r1cs: *mut cuzk_r1cs);
    pub fn cuzk_wtns_load(path: *const c_char, values: *mut *mut cuzk_fr, count: *mut u64) -> c_int;
    pub fn cuzk_r1cs_partition(r1cs: *const cuzk_r1cs, witness: *const cuzk_fr, count: u64, out: *mut cuzk_partition) -> c_int;
    // TEST-ONLY key generation (cuzk/r1cs.h, from the circom CLI work); unused here.
    pub fn cuzk_setup(r1cs: *const cuzk_r1cs, seed: *const u8, params_path: *const c_char,
                      vk_path: *const c_char) -> c_int;
    pub fn cuzk_free(p: *mut c_void);
}
