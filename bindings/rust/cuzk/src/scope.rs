//! Scoped submission of borrowed partitions, on the model of `std::thread::scope`: the scope
//! function does not return before the engine has released every partition submitted in it.
//! The wait is in the function itself, not in a destructor, so leaking anything
//! (`mem::forget`) cannot skip it; and the `'scope` lifetime keeps a partition's slices
//! borrowed, so they cannot be freed or mutated, until then.
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};

use cuzk_sys as sys;

use crate::error::{check, invalid, Result};
use crate::{ConstraintSystem, Engine, Job, Partition, Srs, WitnessPartition};

/// Jobs of one scope whose buffers the engine may still read.
#[derive(Default)]
struct Pending {
    count: Mutex<usize>,
    zero: Condvar,
}

impl Pending {
    fn add(&self, n: isize) {
        let mut c = self.count.lock().unwrap_or_else(|e| e.into_inner());
        *c = c.checked_add_signed(n).expect("scope job count");
        if *c == 0 {
            self.zero.notify_all();
        }
    }

    fn wait_zero(&self) {
        let mut c = self.count.lock().unwrap_or_else(|e| e.into_inner());
        while *c != 0 {
            c = self.zero.wait(c).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The release callback of a scoped partition: the engine has stopped reading it. `user` is
/// one strong count of the scope's `Arc<Pending>`, taken at submit, given back here — the Arc
/// (not the scope's stack) keeps the counter alive while this runs.
unsafe extern "C" fn released(user: *mut c_void) {
    let pending = unsafe { Arc::from_raw(user as *const Pending) };
    pending.add(-1);
}

/// A proving scope: see [`Engine::scope`].
pub struct Scope<'scope, 'env: 'scope> {
    engine: &'env Engine,
    pending: Arc<Pending>,
    // Invariant in both lifetimes, as std's Scope: a shorter 'scope could otherwise be
    // substituted, letting shorter borrows in.
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

// Send/Sync hold without an unsafe impl: &Engine (Engine is Sync), Arc<Pending> (a Mutex and
// a Condvar) and the markers are all Send + Sync, so threads spawned inside the scope
// (std::thread::scope) may submit through one `&Scope` together.

impl Engine {
    /// Runs `f` with a [`Scope`] through which partitions that borrow the host's own slices
    /// (a `Vec<Fr>` from synthesis, say) are submitted without a copy; returns only after the
    /// engine has finished reading every partition submitted through it — proven, failed or
    /// canceled — even when `f` panics (the panic is resumed after the wait).
    ///
    /// Results are polled as usual ([`Engine::poll`]), inside the scope or after it; the
    /// scope waits for the engine to release the buffers, not for anyone to poll. A job that
    /// can never run (its memory never fits the budget while the scope holds other memory
    /// the host would free after it) keeps the scope waiting, as a thread that never ends
    /// keeps `std::thread::scope` waiting.
    pub fn scope<'env, F, T>(&'env self, f: F) -> T
    where
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
    {
        let scope = Scope { engine: self, pending: Arc::default(), scope: PhantomData, env: PhantomData };
        let out = catch_unwind(AssertUnwindSafe(|| f(&scope)));
        scope.pending.wait_zero();
        match out {
            Ok(v) => v,
            Err(panic) => resume_unwind(panic),
        }
    }
}

impl<'scope, 'env> Scope<'scope, 'env> {
    /// Queues a borrowed partition and returns at once. Its slices stay borrowed until the
    /// scope ends, and the scope waits for the engine to release them. Errors as
    /// [`Engine::submit`] (`ErrorKind::Again`: queue full, poll and retry), plus
    /// `ErrorKind::Invalid` for slices shorter than the partition's counts need.
    pub fn submit(&'scope self, srs: &Srs<'_>, p: Partition<'scope>) -> Result<Job> {
        if !std::ptr::eq(srs.engine(), self.engine) {
            return Err(invalid("key of another engine"));
        }
        let mut raw = p.to_raw()?;
        self.with_release(|release, user| {
            raw.release = release;
            raw.release_user = user;
            let mut job = 0;
            check(unsafe { sys::cuzk_submit_partition(self.engine.raw(), srs.raw(), &raw, &mut job) }).map(|()| Job(job))
        })
    }

    /// Queues a witness-only partition of `cs` for the key `srs` and returns at once: the
    /// engine evaluates a, b, c from `cs` and the witness, then proves; the proof is byte for
    /// byte the one [`Scope::submit`] gives for the same witness, r and s. The slices stay
    /// borrowed until the scope ends. Errors as [`Scope::submit`], plus
    /// `ErrorKind::Mismatch` when the counts differ from `cs`'s or `cs` does not fit the key.
    pub fn submit_witness(&'scope self, srs: &Srs<'_>, cs: &ConstraintSystem<'_>, w: WitnessPartition<'scope>) -> Result<Job> {
        if !std::ptr::eq(srs.engine(), self.engine) || !std::ptr::eq(cs.engine(), self.engine) {
            return Err(invalid("key or constraint system of another engine"));
        }
        let mut raw = w.to_raw();
        self.with_release(|release, user| {
            raw.release = release;
            raw.release_user = user;
            let mut job = 0;
            check(unsafe { sys::cuzk_submit_witness(self.engine.raw(), srs.raw(), cs.raw(), &raw, &mut job) })
                .map(|()| Job(job))
        })
    }

    /// Runs a submit with this scope's release callback and one count of the pending jobs;
    /// a refused submit is never released by the engine, so its count is given back here.
    fn with_release<F>(&self, submit: F) -> Result<Job>
    where
        F: FnOnce(Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void) -> Result<Job>,
    {
        self.pending.add(1);
        let token = Arc::into_raw(Arc::clone(&self.pending));
        let rc = submit(Some(released), token as *mut c_void);
        if rc.is_err() {
            unsafe { released(token as *mut c_void) };
        }
        rc
    }

    /// The engine this scope submits to (to poll or cancel from inside the scope).
    pub fn engine(&self) -> &'env Engine {
        self.engine
    }
}
