//! The engine: options, proving keys, submitting owned witnesses, polling results.
use std::collections::HashMap;
use std::mem::{size_of, ManuallyDrop};
use std::os::raw::c_void;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use cuzk_sys as sys;

use crate::error::{check, invalid, Error, ErrorKind, Result};
use crate::partition::Shape;
use crate::stats::Stats;
use crate::trace::{self, Sink, TraceEvent};
use crate::witness::{Held, SubmitError, Witness};
use crate::{check_version, cpath, Proof};

/// Which prover runs the partitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// CUDA when a usable GPU is found, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda,
}

impl Backend {
    fn raw(self) -> i64 {
        (match self {
            Backend::Auto => sys::CUZK_BACKEND_AUTO,
            Backend::Cpu => sys::CUZK_BACKEND_CPU,
            Backend::Cuda => sys::CUZK_BACKEND_CUDA,
        }) as i64
    }
    pub(crate) fn from_raw(v: i32) -> Backend {
        match v {
            sys::CUZK_BACKEND_CPU => Backend::Cpu,
            sys::CUZK_BACKEND_CUDA => Backend::Cuda,
            _ => Backend::Auto,
        }
    }
}

/// Engine options (`CUZK_OPT_*`); 0 means the library's default for every number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub backend: Backend,
    /// Bit i = use GPU i; 0 = every GPU.
    pub device_mask: u64,
    /// Proving threads per device (the CPU counts as one device), 1..64.
    pub workers_per_device: u32,
    /// Threads for CPU arithmetic; 0 = one per online CPU.
    pub cpu_threads: u32,
    /// Working-memory budget; 0 = 3/4 of physical memory.
    pub host_budget_bytes: u64,
    /// Per-GPU budget; 0 = what the GPU has free at start.
    pub device_budget_bytes: u64,
    /// Jobs in the engine at once (queued, running or unpolled); 0 = 1024.
    pub queue_capacity: u32,
    /// Check every proof with a pairing before returning it (the default: true).
    pub verify: bool,
    /// Threads that finish, verify and post results; 0 = 2.
    pub finisher_threads: u32,
    /// Trace ring size in events (16..2^20); 0 = 8192.
    pub trace_capacity: u32,
    /// How long an idle engine thread polls before sleeping, in ns; 0 = the library's choice,
    /// -1 = never spin.
    pub idle_spin_ns: i64,
    /// Prove a partition that failed on a device (or its self-check) once more on the CPU.
    pub retry_on_cpu: bool,
    /// T in 1..7: partitions of priority T or higher are urgent; each device gets 8 - T more
    /// workers, one per level T..7, that take only partitions of at least their level and run
    /// beside the others (`cuzk.h`, "Priorities"). Filecoin: 6. 0 = none.
    pub urgent_priority: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            backend: Backend::Auto,
            device_mask: 0,
            workers_per_device: 0,
            cpu_threads: 0,
            host_budget_bytes: 0,
            device_budget_bytes: 0,
            queue_capacity: 0,
            verify: true,
            finisher_threads: 0,
            trace_capacity: 0,
            idle_spin_ns: 0,
            retry_on_cpu: false,
            urgent_priority: 0,
        }
    }
}

impl Options {
    fn values(&self) -> [(i32, i64); 13] {
        [
            (sys::CUZK_OPT_BACKEND, self.backend.raw()),
            (sys::CUZK_OPT_DEVICE_MASK, self.device_mask as i64),
            (sys::CUZK_OPT_WORKERS_PER_DEVICE, self.workers_per_device.into()),
            (sys::CUZK_OPT_CPU_THREADS, self.cpu_threads.into()),
            (sys::CUZK_OPT_HOST_BUDGET_BYTES, self.host_budget_bytes.min(i64::MAX as u64) as i64),
            (sys::CUZK_OPT_DEVICE_BUDGET_BYTES, self.device_budget_bytes.min(i64::MAX as u64) as i64),
            (sys::CUZK_OPT_QUEUE_CAPACITY, self.queue_capacity.into()),
            (sys::CUZK_OPT_VERIFY, self.verify.into()),
            (sys::CUZK_OPT_FINISHER_THREADS, self.finisher_threads.into()),
            (sys::CUZK_OPT_TRACE_CAPACITY, self.trace_capacity.into()),
            (sys::CUZK_OPT_IDLE_SPIN_NS, self.idle_spin_ns),
            (sys::CUZK_OPT_RETRY_ON_CPU, self.retry_on_cpu.into()),
            (sys::CUZK_OPT_URGENT_PRIORITY, self.urgent_priority.into()),
        ]
    }
}

/// A submitted job's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job(pub u64);

/// One finished job.
#[derive(Debug)]
pub struct Outcome<'e> {
    pub job: Job,
    /// The partition's tag, echoed.
    pub tag: u64,
    /// The GPU that proved it; None = the CPU.
    pub device: Option<u32>,
    pub queued: Duration,
    pub on_device: Duration,
    pub total: Duration,
    /// The proof, or why the job failed: the kind and the job's own detail text.
    pub proof: Result<Proof>,
    /// For a job submitted as an owned [`Witness`]: its buffers, handed back for the next
    /// partition. None for a job submitted through a [`Scope`](crate::Scope).
    pub witness: Option<Witness<'e>>,
}

/// A proving engine: its workers, finishers, trace and housekeeping threads.
///
/// Dropping it cancels queued jobs, waits for running ones and frees everything the library
/// holds for it. Nothing a job reads can be freed while the job runs, even if the engine is
/// leaked (`mem::forget`): owned [`Witness`] blocks move into the engine until their
/// result comes back (a leaked engine leaks them too), and borrowed [`Partition`]s can only
/// be submitted inside [`Engine::scope`], which waits for its jobs before it returns.
///
/// [`Partition`]: crate::Partition
pub struct Engine {
    raw: NonNull<sys::cuzk_engine>,
    /// Witness blocks the engine reads now, by job handle, until [`Engine::poll`] hands them
    /// back. They are the library's memory (`cuzk_host_alloc`), freed by the library at
    /// destroy, so the map never frees anything itself.
    held: Mutex<HashMap<u64, Held>>,
    /// The trace closure (`Box<Sink>`), owned here and freed after cuzk_engine_destroy, the
    /// point after which the library never calls it again.
    trace: *mut Sink,
}

// SAFETY: every cuzk_ call an Engine method makes is documented thread-safe (submit, poll,
// cancel, stats, host_alloc/free, srs_load); the one that is not, cuzk_engine_destroy, runs in
// Drop, which has the engine exclusively. The Rust state is a Mutex. The trace closure is only
// touched by the library's one trace thread (and freed in Drop after it has stopped); it is
// `Send`, which is all a value moved to another thread and used there alone needs.
unsafe impl Send for Engine {}
unsafe impl Sync for Engine {}

impl Engine {
    /// Starts an engine. Fails with `ErrorKind::Device` when CUDA is requested but unusable,
    /// and with `ErrorKind::Invalid` when the loaded library cannot serve this binding.
    pub fn new(options: &Options) -> Result<Engine> {
        Engine::create(options, None)
    }

    /// Starts an engine whose trace events go to `f`, called on the engine's trace thread
    /// (never a proving thread), one event at a time. A slow `f` never slows proving: events
    /// that find the ring full are dropped and counted ([`Stats`]: `trace_dropped`). `f` must be
    /// `'static`: the engine may be leaked, and the trace thread would then call it forever.
    pub fn with_trace<F>(options: &Options, f: F) -> Result<Engine>
    where
        F: FnMut(&TraceEvent) + Send + 'static,
    {
        Engine::create(options, Some(Box::new(Box::new(f))))
    }

    fn create(options: &Options, sink: Option<Box<Sink>>) -> Result<Engine> {
        check_version()?;
        struct Config(*mut sys::cuzk_config);
        impl Drop for Config {
            fn drop(&mut self) {
                unsafe { sys::cuzk_config_free(self.0) }
            }
        }
        let mut cfg = Config(ptr::null_mut());
        check(unsafe { sys::cuzk_config_new(&mut cfg.0) })?;
        for (opt, value) in options.values() {
            check(unsafe { sys::cuzk_config_set(cfg.0, opt, value) })?;
        }
        let trace = sink.map_or(ptr::null_mut(), Box::into_raw);
        let mut raw = ptr::null_mut();
        let rc = check(unsafe {
            if !trace.is_null() {
                sys::cuzk_config_set_trace(cfg.0, Some(trace::trampoline), trace as *mut c_void);
            }
            sys::cuzk_engine_create(cfg.0, &mut raw)
        });
        match (rc, NonNull::new(raw)) {
            (Ok(()), Some(raw)) => Ok(Engine { raw, held: Mutex::new(HashMap::new()), trace }),
            (rc, _) => {
                // No engine, so no trace thread ever saw the closure.
                if !trace.is_null() {
                    drop(unsafe { Box::from_raw(trace) });
                }
                Err(rc.err().unwrap_or_else(|| invalid("cuzk_engine_create returned no engine")))
            }
        }
    }

    pub(crate) fn raw(&self) -> *mut sys::cuzk_engine {
        self.raw.as_ptr()
    }

    fn held(&self) -> MutexGuard<'_, HashMap<u64, Held>> {
        // The map stays consistent at every await-free step, so a poisoned lock is usable.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads a proving key (bellperson's parameter file format).
    pub fn load_srs(&self, params: impl AsRef<Path>) -> Result<Srs<'_>> {
        self.load_srs_flags(params.as_ref(), 0)
    }

    /// Like [`Engine::load_srs`], checking every point's subgroup too (slower; for files
    /// that are not trusted).
    pub fn load_srs_checked(&self, params: impl AsRef<Path>) -> Result<Srs<'_>> {
        self.load_srs_flags(params.as_ref(), sys::CUZK_SRS_CHECK_SUBGROUP)
    }

    /// Like [`Engine::load_srs`] for a key that must stay ready (WinningPoSt's,
    /// `CUZK_SRS_PIN`): on a GPU its bases are resident on every device or the load fails
    /// with `ErrorKind::Budget` (load it before keys that could take the room).
    pub fn load_srs_pinned(&self, params: impl AsRef<Path>) -> Result<Srs<'_>> {
        self.load_srs_flags(params.as_ref(), sys::CUZK_SRS_PIN)
    }

    /// Like [`Engine::load_srs`] for a key whose partitions come at urgent priority
    /// (WindowPoSt's, `CUZK_SRS_URGENT`): with urgent workers, each GPU keeps room for an
    /// urgent slot of its size, taken from its own resident bases, so its partitions start
    /// beside a running backlog.
    pub fn load_srs_urgent(&self, params: impl AsRef<Path>) -> Result<Srs<'_>> {
        self.load_srs_flags(params.as_ref(), sys::CUZK_SRS_URGENT)
    }

    fn load_srs_flags(&self, params: &Path, flags: u32) -> Result<Srs<'_>> {
        let path = cpath(params)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::cuzk_srs_load(self.raw(), path.as_ptr(), flags, &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| invalid("cuzk_srs_load returned no key"))?;
        Ok(Srs { raw, engine: self })
    }

    /// Allocates a zeroed [`Witness`] of this shape in the engine's host memory (counted in
    /// the host budget, page-locked on a GPU engine). `ErrorKind::Again`: it does not fit the
    /// budget now, retry after results come back; `ErrorKind::Budget`: it never will.
    pub fn witness(&self, shape: Shape) -> Result<Witness<'_>> {
        Witness::new(self, shape)
    }

    /// Queues an owned witness for proving and returns at once. The witness moves into the
    /// engine, which holds it until [`Engine::poll`] returns the job's [`Outcome`] with it;
    /// on failure it comes back in the [`SubmitError`] (`ErrorKind::Again`: the queue is
    /// full; poll results, then retry).
    pub fn submit<'e>(&'e self, srs: &Srs<'e>, witness: Witness<'e>) -> Result<Job, SubmitError<'e>> {
        // Another engine's block would be freed by that engine's drop, under this one's job.
        if !ptr::eq(witness.engine(), self) || !ptr::eq(srs.engine, self) {
            return Err(SubmitError::new(invalid("witness or key of another engine"), witness));
        }
        let raw = match witness.view().to_raw() {
            Ok(raw) => raw,
            Err(e) => return Err(SubmitError::new(e, witness)),
        };
        // Held across the call: a poller on another thread may take the result the moment
        // the job exists, and must find the block in the map.
        let mut held = self.held();
        let mut job = 0;
        if let Err(e) = check(unsafe { sys::cuzk_submit_partition(self.raw(), srs.raw.as_ptr(), &raw, &mut job) }) {
            return Err(SubmitError::new(e, witness));
        }
        held.insert(job, ManuallyDrop::new(witness).held());
        Ok(Job(job))
    }

    /// Takes one finished job's result (any job's; each exactly once), waiting up to
    /// `timeout` (None = as long as it takes, `Some(Duration::ZERO)` = not at all).
    /// `Ok(None)`: nothing finished in time.
    pub fn poll(&self, timeout: Option<Duration>) -> Result<Option<Outcome<'_>>> {
        let t = timeout.map_or(-1, |d| d.as_nanos().min(i64::MAX as u128) as i64);
        // SAFETY: cuzk_result is plain data (integers and arrays): all zeroes is a valid value.
        let mut r: sys::cuzk_result = unsafe { std::mem::zeroed() };
        r.struct_size = size_of::<sys::cuzk_result>() as u32;
        match check(unsafe { sys::cuzk_poll_result(self.raw(), &mut r, t) }) {
            Err(e) if e.kind == ErrorKind::Again => return Ok(None),
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        let witness = self.held().remove(&r.job).map(|h| Witness::from_held(self, h, r.user_tag));
        Ok(Some(Outcome {
            job: Job(r.job),
            tag: r.user_tag,
            device: u32::try_from(r.device).ok(),
            queued: Duration::from_nanos(r.queued_ns),
            on_device: Duration::from_nanos(r.device_ns),
            total: Duration::from_nanos(r.total_ns),
            proof: if r.status == sys::CUZK_OK { Ok(r.proof) } else { Err(Error::from_job(r.status, &r.detail)) },
            witness,
        }))
    }

    /// Asks that a job be canceled; its result then arrives with `ErrorKind::Canceled`.
    /// `ErrorKind::Again`: too late, its result is waiting; `ErrorKind::NotFound`: no such job
    /// (or its result was already polled).
    pub fn cancel(&self, job: Job) -> Result<()> {
        check(unsafe { sys::cuzk_cancel(self.raw(), job.0) })
    }

    /// A snapshot of the engine's counters.
    pub fn stats(&self) -> Result<Stats> {
        let mut s = sys::cuzk_stats { struct_size: size_of::<sys::cuzk_stats>() as u32, ..Default::default() };
        check(unsafe { sys::cuzk_engine_stats(self.raw(), &mut s) })?;
        Ok(Stats::from_raw(s))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Cancels, waits, runs every release callback, frees the witness blocks still held and
        // delivers the last trace events; after it the trace closure is ours alone.
        unsafe { sys::cuzk_engine_destroy(self.raw()) };
        if !self.trace.is_null() {
            drop(unsafe { Box::from_raw(self.trace) });
        }
    }
}

/// A loaded proving key. Dropping it gives up this hold only: jobs that use the key keep it
/// alive inside the engine.
pub struct Srs<'e> {
    raw: NonNull<sys::cuzk_srs>,
    engine: &'e Engine,
}

impl<'e> Srs<'e> {
    pub(crate) fn raw(&self) -> *mut sys::cuzk_srs {
        self.raw.as_ptr()
    }
    pub(crate) fn engine(&self) -> &'e Engine {
        self.engine
    }
}

// SAFETY: cuzk_srs_release and submitting with a key are thread-safe except against
// cuzk_engine_destroy of its engine, which the borrow of the engine rules out.
unsafe impl Send for Srs<'_> {}
unsafe impl Sync for Srs<'_> {}

impl Drop for Srs<'_> {
    fn drop(&mut self) {
        unsafe { sys::cuzk_srs_release(self.raw()) }
    }
}
