//! The one libcuzk engine of the process: made by the first `SRS::try_new` from the `CUZK_*`
//! environment variables (the same names and meanings as libcuzk-supraseal.so's,
//! docs/filecoin.md), kept until the process ends (supraseal's own state lives as long).
//! One thread polls every result and hands each to the call that submitted it, so concurrent
//! `generate_groth16_proofs` calls never take each other's results.
use std::collections::HashMap;
use std::ffi::CStr;
use std::mem::size_of;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Mutex, MutexGuard};

use cuzk_sys as sys;

use crate::cuda::Error;

/// A finished job, for the call that submitted it: (its index in that call, the result).
pub(crate) type Done = (usize, Box<sys::cuzk_result>);

pub(crate) struct Engine {
    raw: NonNull<sys::cuzk_engine>,
    /// user_tag -> where its result goes. A tag is entered before its job is submitted, so the
    /// poller always finds it.
    pending: Mutex<HashMap<u64, (Sender<Done>, usize)>>,
    next_tag: AtomicU64,
}

// SAFETY: every cuzk_ call used on the engine (submit, poll, cancel, stats, srs_load) is
// thread-safe; cuzk_engine_destroy, the one that is not, is never called.
unsafe impl Send for Engine {}
unsafe impl Sync for Engine {}

static ENGINE: Mutex<Option<&'static Engine>> = Mutex::new(None);

/// The environment variables and the option each sets (CUZK_BACKEND is parsed apart).
const ENV_OPTIONS: [(&str, i32); 9] = [
    ("CUZK_DEVICE_MASK", sys::CUZK_OPT_DEVICE_MASK),
    ("CUZK_WORKERS_PER_DEVICE", sys::CUZK_OPT_WORKERS_PER_DEVICE),
    ("CUZK_CPU_THREADS", sys::CUZK_OPT_CPU_THREADS),
    ("CUZK_HOST_BUDGET_BYTES", sys::CUZK_OPT_HOST_BUDGET_BYTES),
    ("CUZK_DEVICE_BUDGET_BYTES", sys::CUZK_OPT_DEVICE_BUDGET_BYTES),
    ("CUZK_QUEUE_CAPACITY", sys::CUZK_OPT_QUEUE_CAPACITY),
    ("CUZK_FINISHER_THREADS", sys::CUZK_OPT_FINISHER_THREADS),
    ("CUZK_VERIFY", sys::CUZK_OPT_VERIFY),
    ("CUZK_RETRY_ON_CPU", sys::CUZK_OPT_RETRY_ON_CPU),
];

pub(crate) fn last_error() -> String {
    unsafe { CStr::from_ptr(sys::cuzk_last_error()) }.to_string_lossy().into_owned()
}

pub(crate) fn strerror(code: i32) -> String {
    unsafe { CStr::from_ptr(sys::cuzk_strerror(code)) }.to_string_lossy().into_owned()
}

/// Decimal, or hexadecimal after 0x (device masks read better so).
fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A cuzk_config made from the environment, freed on drop.
struct Config(*mut sys::cuzk_config);

impl Drop for Config {
    fn drop(&mut self) {
        unsafe { sys::cuzk_config_free(self.0) }
    }
}

fn config_from_env() -> Result<Config, Error> {
    let mut cfg = Config(ptr::null_mut());
    let rc = unsafe { sys::cuzk_config_new(&mut cfg.0) };
    if rc != sys::CUZK_OK {
        return Err(Error::new(rc, format!("libcuzk configuration: {}", last_error())));
    }
    if let Some(b) = env("CUZK_BACKEND") {
        let v = match b.as_str() {
            "auto" => sys::CUZK_BACKEND_AUTO,
            "cpu" => sys::CUZK_BACKEND_CPU,
            "cuda" => sys::CUZK_BACKEND_CUDA,
            _ => {
                return Err(Error::new(sys::CUZK_EINVAL, format!("CUZK_BACKEND is '{b}'; it takes auto, cpu or cuda")))
            }
        };
        unsafe { sys::cuzk_config_set(cfg.0, sys::CUZK_OPT_BACKEND, v as i64) };
    }
    for (name, opt) in ENV_OPTIONS {
        let Some(s) = env(name) else { continue };
        let v =
            parse_i64(&s).ok_or_else(|| Error::new(sys::CUZK_EINVAL, format!("{name} is '{s}', not an integer")))?;
        if unsafe { sys::cuzk_config_set(cfg.0, opt, v) } != sys::CUZK_OK {
            return Err(Error::new(sys::CUZK_EINVAL, format!("{name}={s}: {}", last_error())));
        }
    }
    Ok(cfg)
}

/// The engine, made on the first call. A failure is not kept: the next call tries again
/// (after the host fixed the environment, say).
pub(crate) fn engine() -> Result<&'static Engine, Error> {
    let mut slot: MutexGuard<'_, _> = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = *slot {
        return Ok(e);
    }
    let v = unsafe { sys::cuzk_version_number() };
    if v / 10000 != sys::CUZK_VERSION_NUMBER / 10000 || v < sys::CUZK_VERSION_NUMBER {
        return Err(Error::new(
            sys::CUZK_EINVAL,
            format!("libcuzk {v} is loaded; supraseal-c2 needs {} or a later 0.x", sys::CUZK_VERSION_NUMBER),
        ));
    }
    let cfg = config_from_env()?;
    let mut raw = ptr::null_mut();
    let rc = unsafe { sys::cuzk_engine_create(cfg.0, &mut raw) };
    let raw = match NonNull::new(raw) {
        Some(raw) if rc == sys::CUZK_OK => raw,
        _ => return Err(Error::new(rc, format!("libcuzk engine: {}: {}", strerror(rc), last_error()))),
    };
    let e: &'static Engine =
        Box::leak(Box::new(Engine { raw, pending: Mutex::new(HashMap::new()), next_tag: AtomicU64::new(1) }));
    std::thread::Builder::new()
        .name("supraseal-c2-results".into())
        .spawn(move || e.dispatch())
        .map_err(|err| Error::new(sys::CUZK_ENOMEM, format!("supraseal-c2: cannot start its result thread: {err}")))?;
    announce(e);
    *slot = Some(e);
    Ok(e)
}

/// The one line that says libcuzk, not supraseal, proves in this process (docs/filecoin.md).
fn announce(e: &Engine) {
    let version = unsafe { CStr::from_ptr(sys::cuzk_version_string()) }.to_string_lossy();
    let what = match e.stats() {
        Some(s) if s.backend == sys::CUZK_BACKEND_CUDA => {
            format!("CUDA on {} GPU(s), {} workers", s.devices, s.workers)
        }
        Some(s) => format!("CPU, {} workers", s.workers),
        None => "backend unknown".into(),
    };
    eprintln!("supraseal-c2 {}: proving with libcuzk {version} ({what})", env!("CARGO_PKG_VERSION"));
}

impl Engine {
    pub(crate) fn raw(&self) -> *mut sys::cuzk_engine {
        self.raw.as_ptr()
    }

    pub(crate) fn stats(&self) -> Option<sys::cuzk_stats> {
        let mut s = sys::cuzk_stats { struct_size: size_of::<sys::cuzk_stats>() as u32, ..Default::default() };
        (unsafe { sys::cuzk_engine_stats(self.raw(), &mut s) } == sys::CUZK_OK).then_some(s)
    }

    /// A fresh tag whose result goes to `to` as index `i`.
    pub(crate) fn expect(&self, to: &Sender<Done>, i: usize) -> u64 {
        // relaxed: only uniqueness matters; the map's lock orders the rest
        let tag = self.next_tag.fetch_add(1, Ordering::Relaxed);
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(tag, (to.clone(), i));
        tag
    }

    /// Forgets a tag whose job was never submitted.
    pub(crate) fn forget(&self, tag: u64) {
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&tag);
    }

    /// The result thread: every result, to its caller. Blocks in the library while idle.
    fn dispatch(&self) {
        loop {
            // SAFETY: cuzk_result is plain data: all zeros is a valid value.
            let mut r: Box<sys::cuzk_result> = Box::new(unsafe { std::mem::zeroed() });
            r.struct_size = size_of::<sys::cuzk_result>() as u32;
            let rc = unsafe { sys::cuzk_poll_result(self.raw(), &mut *r, -1) };
            if rc == sys::CUZK_EAGAIN {
                continue;
            }
            if rc != sys::CUZK_OK {
                // Only a destroyed engine says so, and this one never is; do not spin.
                eprintln!("supraseal-c2: cuzk_poll_result: {}: {}; no more results", strerror(rc), last_error());
                return;
            }
            let to = self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&r.user_tag);
            if let Some((tx, i)) = to {
                // The caller may have panicked meanwhile; its result then goes nowhere.
                let _ = tx.send((i, r));
            }
        }
    }
}

/// The process engine's counters, or None before the first `SRS::try_new` made it: the way to
/// see from the host that libcuzk proves (`backend`, `completed`, ...; cuzk.h's cuzk_stats).
pub fn engine_stats() -> Option<sys::cuzk_stats> {
    let e = *ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    e.and_then(|e| e.stats())
}
