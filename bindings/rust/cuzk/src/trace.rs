//! Trace events: the engine's timeline (queue waits, budget waits, copies, NTTs, MSMs, ...)
//! delivered to a Rust closure on the engine's one trace thread.
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cuzk_sys as sys;

/// What a trace event measured: one of the `CUZK_TRACE_*` kinds. A newtype rather than an
/// enum because later libraries may add kinds; hosts ignore the ones they do not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TraceKind(pub i32);

macro_rules! kinds {
    ($($name:ident = $c:ident),* $(,)?) => {
        impl TraceKind {
            $(pub const $name: TraceKind = TraceKind(sys::$c);)*
            /// The C name without its prefix ("MSM_H"), or None for a kind this binding does
            /// not know.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $(sys::$c => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}
kinds! {
    SUBMIT = CUZK_TRACE_SUBMIT, QUEUE_WAIT = CUZK_TRACE_QUEUE_WAIT, BUDGET_WAIT = CUZK_TRACE_BUDGET_WAIT,
    H2D_COPY = CUZK_TRACE_H2D_COPY, NTT_INTT = CUZK_TRACE_NTT_INTT, NTT_COSET = CUZK_TRACE_NTT_COSET,
    NTT_COSET_INTT = CUZK_TRACE_NTT_COSET_INTT, H_STEP = CUZK_TRACE_H_STEP, MSM_H = CUZK_TRACE_MSM_H,
    MSM_L = CUZK_TRACE_MSM_L, MSM_A = CUZK_TRACE_MSM_A, MSM_B_G1 = CUZK_TRACE_MSM_B_G1,
    MSM_B_G2 = CUZK_TRACE_MSM_B_G2, MSM_ALL = CUZK_TRACE_MSM_ALL, ASSEMBLY = CUZK_TRACE_ASSEMBLY,
    VERIFY = CUZK_TRACE_VERIFY, RELEASE = CUZK_TRACE_RELEASE, ARENA_TRIM = CUZK_TRACE_ARENA_TRIM,
    DEVICE_IDLE = CUZK_TRACE_DEVICE_IDLE, START = CUZK_TRACE_START, FINISH = CUZK_TRACE_FINISH,
    RESULT = CUZK_TRACE_RESULT, HOST_PREP = CUZK_TRACE_HOST_PREP,
}

/// One trace event (`cuzk_trace_event`), copied out of the library's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub kind: TraceKind,
    /// GPU ordinal; None = the CPU.
    pub device: Option<u32>,
    /// Worker index within the engine; None = not a worker.
    pub worker: Option<u32>,
    /// The job's handle (0 if none) and its partition's tag (0 if none).
    pub job: u64,
    pub tag: u64,
    /// CLOCK_MONOTONIC nanoseconds; equal for an instant event.
    pub begin_ns: u64,
    pub end_ns: u64,
    /// Bytes moved or reserved, 0 if not applicable.
    pub bytes: u64,
}

fn ordinal(v: i32) -> Option<u32> {
    u32::try_from(v).ok()
}

/// The host's closure, boxed once more so the C side gets a thin pointer.
pub(crate) type Sink = Box<dyn FnMut(&TraceEvent) + Send>;

/// The C callback. `user` is the `Box<Sink>` the engine owns; the library calls this on its
/// one trace thread, one event at a time, and never after cuzk_engine_destroy returns, so the
/// `&mut` below is exclusive. A panic must not unwind into C: it is caught and the event
/// dropped (the engine goes on).
pub(crate) unsafe extern "C" fn trampoline(ev: *const sys::cuzk_trace_event, user: *mut c_void) {
    if ev.is_null() || user.is_null() {
        return;
    }
    // SAFETY: see above; every member read here exists from CUZK_TRACE_EVENT_SIZE_V1 on.
    let (e, sink) = unsafe { (&*ev, &mut *(user as *mut Sink)) };
    let event = TraceEvent {
        kind: TraceKind(e.kind),
        device: ordinal(e.device),
        worker: ordinal(e.worker),
        job: e.job,
        tag: e.user_tag,
        begin_ns: e.begin_ns,
        end_ns: e.end_ns,
        bytes: e.bytes,
    };
    let _ = catch_unwind(AssertUnwindSafe(|| sink(&event)));
}
