//! Rust binding of libcuzk: raw FFI in [`sys`], and a safe wrapper. An [`Engine<'env>`]
//! proves [`Partition<'env>`]s that borrow the host's slices; the engine cannot outlive
//! `'env`, and dropping it cancels and waits for every job, so no buffer is freed while the
//! engine still reads it. Results come back as `Result<Proof, Error>`.
pub mod sys;

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr;
use std::time::Duration;

pub use sys::cuzk_fr as Fr;

/// A 192-byte proof: A‖B‖C compressed, bellperson's `Proof::write`.
pub type Proof = [u8; 192];

pub const EINVAL: i32 = -1;
pub const EAGAIN: i32 = -3;
pub const ECANCELED: i32 = -4;
pub const EFORMAT: i32 = -5;
pub const EDEVICE: i32 = -8;
pub const EVERIFY: i32 = -9;
pub const EIO: i32 = -11;

/// A libcuzk failure: the code (`CUZK_E*`) and the detail of the failing call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: i32,
    pub detail: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = unsafe { CStr::from_ptr(sys::cuzk_strerror(self.code)) }.to_string_lossy();
        if self.detail.is_empty() { write!(f, "{name}") } else { write!(f, "{name} ({})", self.detail) }
    }
}
impl std::error::Error for Error {}

/// The detail is thread-local in C and read right after the call, on the same thread.
fn check(rc: c_int) -> Result<(), Error> {
    if rc == 0 {
        return Ok(());
    }
    let detail = unsafe { CStr::from_ptr(sys::cuzk_last_error()) }.to_string_lossy().into_owned();
    Err(Error { code: rc, detail })
}

fn cstr(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error { code: EINVAL, detail: "path contains NUL".into() })
}

/// The loaded library's version, and whether this binding's declarations fit it (same
/// major, minor at least the one the binding was written against: 0.1).
pub fn version() -> (u32, String) {
    let s = unsafe { CStr::from_ptr(sys::cuzk_version_string()) }.to_string_lossy().into_owned();
    (unsafe { sys::cuzk_version_number() }, s)
}
pub const BINDING_VERSION: u32 = 100;
pub fn compatible() -> bool {
    let (v, _) = version();
    v / 10000 == BINDING_VERSION / 10000 && v >= BINDING_VERSION
}

/// Engine options; `None`/0 = the library's default.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub backend: i64,
    pub cpu_threads: i64,
    pub workers_per_device: i64,
    pub queue_capacity: i64,
    pub verify: Option<bool>,
    /// Prove a partition that failed on a device (or its self-check) once more on the CPU.
    pub retry_on_cpu: bool,
}

/// A proving engine. `'env` is the lifetime of the buffers its partitions borrow.
pub struct Engine<'env> {
    raw: *mut sys::cuzk_engine,
    _env: PhantomData<&'env [Fr]>,
}
// The C engine is thread-safe; partitions' borrowed slices are Sync (shared &[Fr]).
unsafe impl Send for Engine<'_> {}
unsafe impl Sync for Engine<'_> {}

impl<'env> Engine<'env> {
    pub fn new(o: &Options) -> Result<Self, Error> {
        if !compatible() {
            return Err(Error { code: EINVAL, detail: format!("libcuzk {} does not fit this binding", version().1) });
        }
        let mut cfg = ptr::null_mut();
        unsafe {
            check(sys::cuzk_config_new(&mut cfg))?;
            let set = |opt, v| check(sys::cuzk_config_set(cfg, opt, v));
            let r = set(sys::CUZK_OPT_BACKEND, o.backend)
                .and_then(|_| set(sys::CUZK_OPT_CPU_THREADS, o.cpu_threads))
                .and_then(|_| set(sys::CUZK_OPT_WORKERS_PER_DEVICE, o.workers_per_device))
                .and_then(|_| set(sys::CUZK_OPT_QUEUE_CAPACITY, o.queue_capacity))
                .and_then(|_| set(sys::CUZK_OPT_VERIFY, o.verify.unwrap_or(true) as i64))
                .and_then(|_| set(sys::CUZK_OPT_RETRY_ON_CPU, o.retry_on_cpu as i64));
            let mut raw = ptr::null_mut();
            let r = r.and_then(|_| check(sys::cuzk_engine_create(cfg, &mut raw)));
            sys::cuzk_config_free(cfg);
            r.map(|_| Engine { raw, _env: PhantomData })
        }
    }

    /// Loads a bellperson `.params` proving key.
    pub fn load_srs(&self, path: &str) -> Result<Srs<'_>, Error> {
        let p = cstr(path)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::cuzk_srs_load(self.raw, p.as_ptr(), 0, &mut raw) })?;
        Ok(Srs { raw, _engine: PhantomData })
    }

    /// Queues a partition. Its slices stay borrowed until the engine is dropped (or the
    /// result is polled), which `'env` guarantees. `Err` with code EAGAIN: queue full.
    pub fn submit(&self, srs: &Srs<'_>, p: &Partition<'env>) -> Result<Job, Error> {
        let raw = sys::cuzk_partition {
            struct_size: std::mem::size_of::<sys::cuzk_partition>() as u32,
            scalar_form: p.scalar_form,
            a: p.a.as_ptr(),
            b: p.b.as_ptr(),
            c: p.c.as_ptr(),
            abc_len: p.a.len() as u64,
            inputs: p.inputs.as_ptr(),
            num_inputs: p.inputs.len() as u64,
            aux: p.aux.as_ptr(),
            num_aux: p.aux.len() as u64,
            a_aux_density: p.a_aux_density.as_ptr(),
            b_input_density: p.b_input_density.as_ptr(),
            b_aux_density: p.b_aux_density.as_ptr(),
            r: ptr::null(),
            s: ptr::null(),
            priority: p.priority,
            reserved: 0,
            user_tag: p.tag,
            release: None,
            release_user: ptr::null_mut(),
        };
        if p.b.len() != p.a.len() || p.c.len() != p.a.len() {
            return Err(Error { code: EINVAL, detail: "a, b and c differ in length".into() });
        }
        let mut job = 0;
        check(unsafe { sys::cuzk_submit_partition(self.raw, srs.raw, &raw, &mut job) })?;
        Ok(Job(job))
    }

    /// Waits up to `timeout` (None = forever) for any finished job.
    pub fn poll(&self, timeout: Option<Duration>) -> Result<Option<Outcome>, Error> {
        let mut r: sys::cuzk_result = unsafe { std::mem::zeroed() };
        r.struct_size = std::mem::size_of::<sys::cuzk_result>() as u32;
        let t = timeout.map_or(-1, |d| d.as_nanos().min(i64::MAX as u128) as i64);
        match check(unsafe { sys::cuzk_poll_result(self.raw, &mut r, t) }) {
            Err(e) if e.code == EAGAIN => Ok(None),
            Err(e) => Err(e),
            Ok(()) => Ok(Some(Outcome {
                job: Job(r.job),
                tag: r.user_tag,
                device: r.device,
                total: Duration::from_nanos(r.total_ns),
                proof: if r.status == 0 { Ok(r.proof) } else { Err(Error { code: r.status, detail: String::new() }) },
            })),
        }
    }

    pub fn cancel(&self, job: Job) -> Result<(), Error> {
        check(unsafe { sys::cuzk_cancel(self.raw, job.0) })
    }

    /// The engine's counters as Prometheus text.
    pub fn prometheus(&self) -> Result<String, Error> {
        let mut st = sys::cuzk_stats { struct_size: std::mem::size_of::<sys::cuzk_stats>() as u32, ..Default::default() };
        check(unsafe { sys::cuzk_engine_stats(self.raw, &mut st) })?;
        let mut n = 0usize;
        unsafe { sys::cuzk_stats_format_prometheus(&st, ptr::null(), 0, ptr::null_mut(), 0, &mut n) };
        let mut buf = vec![0u8; n + 1];
        check(unsafe { sys::cuzk_stats_format_prometheus(&st, ptr::null(), 0, buf.as_mut_ptr().cast(), buf.len(), &mut n) })?;
        buf.truncate(n);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

impl Drop for Engine<'_> {
    /// Cancels queued and running jobs and waits for them: borrowed buffers are free after.
    fn drop(&mut self) {
        unsafe { sys::cuzk_engine_destroy(self.raw) }
    }
}

/// A loaded proving key, released on drop (jobs using it keep it alive in the engine).
pub struct Srs<'e> {
    raw: *mut sys::cuzk_srs,
    _engine: PhantomData<&'e ()>,
}
unsafe impl Send for Srs<'_> {}
unsafe impl Sync for Srs<'_> {}
impl Drop for Srs<'_> {
    fn drop(&mut self) {
        unsafe { sys::cuzk_srs_release(self.raw) }
    }
}

/// One partition's witness, borrowed (FORMATS.md; bellperson's ProvingAssignment).
#[derive(Clone, Copy, Debug)]
pub struct Partition<'a> {
    pub scalar_form: i32,
    pub a: &'a [Fr],
    pub b: &'a [Fr],
    pub c: &'a [Fr],
    pub inputs: &'a [Fr],
    pub aux: &'a [Fr],
    pub a_aux_density: &'a [u64],
    pub b_input_density: &'a [u64],
    pub b_aux_density: &'a [u64],
    pub priority: i32,
    pub tag: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Job(pub u64);

#[derive(Debug)]
pub struct Outcome {
    pub job: Job,
    pub tag: u64,
    pub device: i32,
    pub total: Duration,
    pub proof: Result<Proof, Error>,
}

/// Checks a proof against verifying-key bytes and the public inputs (ONE excluded).
pub fn verify(vk: &[u8], proof: &Proof, public: &[Fr], scalar_form: i32) -> Result<(), Error> {
    check(unsafe { sys::cuzk_verify(vk.as_ptr(), vk.len(), proof.as_ptr(), public.as_ptr(), public.len(), scalar_form) })
}

/// An owned partition made from a circom circuit and witness (cuzk/r1cs.h), for tests and
/// tools: the library's buffers copied into Vecs, so [`OwnedPartition::view`] can borrow.
pub struct OwnedPartition {
    pub scalar_form: i32,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub a_aux_density: Vec<u64>,
    pub b_input_density: Vec<u64>,
    pub b_aux_density: Vec<u64>,
}

impl OwnedPartition {
    pub fn from_circom(r1cs: &str, wtns: &str) -> Result<Self, Error> {
        let (r, w) = (cstr(r1cs)?, cstr(wtns)?);
        unsafe {
            let mut circ = ptr::null_mut();
            check(sys::cuzk_r1cs_load(r.as_ptr(), &mut circ))?;
            let (mut vals, mut n) = (ptr::null_mut(), 0u64);
            if let Err(e) = check(sys::cuzk_wtns_load(w.as_ptr(), &mut vals, &mut n)) {
                sys::cuzk_r1cs_free(circ);
                return Err(e);
            }
            let mut p: sys::cuzk_partition = std::mem::zeroed();
            let rc = check(sys::cuzk_r1cs_partition(circ, vals, n, &mut p));
            sys::cuzk_free(vals.cast());
            sys::cuzk_r1cs_free(circ);
            rc?;
            let v = |x: *const Fr, n: u64| std::slice::from_raw_parts(x, n as usize).to_vec();
            let d = |x: *const u64, bits: u64| std::slice::from_raw_parts(x, ((bits + 63) / 64) as usize).to_vec();
            let out = OwnedPartition {
                scalar_form: p.scalar_form,
                a: v(p.a, p.abc_len),
                b: v(p.b, p.abc_len),
                c: v(p.c, p.abc_len),
                inputs: v(p.inputs, p.num_inputs),
                aux: v(p.aux, p.num_aux),
                a_aux_density: d(p.a_aux_density, p.num_aux),
                b_input_density: d(p.b_input_density, p.num_inputs),
                b_aux_density: d(p.b_aux_density, p.num_aux),
            };
            if let Some(f) = p.release {
                f(p.release_user);
            }
            Ok(out)
        }
    }

    pub fn view(&self, tag: u64) -> Partition<'_> {
        Partition {
            scalar_form: self.scalar_form,
            a: &self.a,
            b: &self.b,
            c: &self.c,
            inputs: &self.inputs,
            aux: &self.aux,
            a_aux_density: &self.a_aux_density,
            b_input_density: &self.b_input_density,
            b_aux_density: &self.b_aux_density,
            priority: 0,
            tag,
        }
    }

    /// The public inputs (ONE excluded), for [`verify`].
    pub fn public(&self) -> &[Fr] {
        &self.inputs[1..]
    }
}
