//! A typed snapshot of the engine's counters (`cuzk_stats`) and its Prometheus text.
use std::ptr;

use cuzk_sys as sys;

use crate::error::{check, invalid, Result};
use crate::Backend;

/// The engine's counters at one moment (read one by one, not as one atomic snapshot).
#[derive(Clone, Debug)]
pub struct Stats {
    pub backend: Backend,
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
    /// Now, [`Witness`](crate::Witness) memory included.
    pub host_reserved_bytes: u64,
    pub host_reserved_peak: u64,
    /// Held in [`Witness`](crate::Witness) blocks now.
    pub host_alloc_bytes: u64,
    pub budget_waits: u64,
    /// Trace events delivered to the closure, and dropped because its ring was full.
    pub trace_events: u64,
    pub trace_dropped: u64,
    pub arena_collects: u64,
    pub arena_bytes: u64,
    raw: sys::cuzk_stats,
}

impl Stats {
    pub(crate) fn from_raw(s: sys::cuzk_stats) -> Stats {
        Stats {
            backend: Backend::from_raw(s.backend),
            devices: s.devices,
            workers: s.workers,
            submitted: s.submitted,
            completed: s.completed,
            failed: s.failed,
            canceled: s.canceled,
            verify_failed: s.verify_failed,
            queued: s.queued,
            running: s.running,
            unpolled: s.unpolled,
            queue_capacity: s.queue_capacity,
            host_budget_bytes: s.host_budget_bytes,
            host_reserved_bytes: s.host_reserved_bytes,
            host_reserved_peak: s.host_reserved_peak,
            host_alloc_bytes: s.host_alloc_bytes,
            budget_waits: s.budget_waits,
            trace_events: s.trace_events,
            trace_dropped: s.trace_dropped,
            arena_collects: s.arena_collects,
            arena_bytes: s.arena_bytes,
            raw: s,
        }
    }

    /// The snapshot in the Prometheus text format (served on a /metrics endpoint).
    /// `device_busy_ns[i]` is GPU i's busy time (on the CPU backend one entry, the CPU), the
    /// sums of [`TraceKind::START`](crate::TraceKind::START) spans; empty leaves that metric
    /// out. Formats the snapshot as read, whatever the public fields were changed to.
    pub fn prometheus(&self, device_busy_ns: &[u64]) -> Result<String> {
        let n = u32::try_from(device_busy_ns.len()).map_err(|_| invalid("too many devices"))?;
        let busy = if device_busy_ns.is_empty() { ptr::null() } else { device_busy_ns.as_ptr() };
        let mut len = 0usize;
        // Asking for the size with an empty buffer answers CUZK_ERANGE and the length.
        let rc = unsafe { sys::cuzk_stats_format_prometheus(&self.raw, busy, n, ptr::null_mut(), 0, &mut len) };
        if rc != sys::CUZK_ERANGE {
            check(rc)?;
        }
        let mut buf = vec![0u8; len + 1];
        check(unsafe {
            sys::cuzk_stats_format_prometheus(&self.raw, busy, n, buf.as_mut_ptr().cast(), buf.len(), &mut len)
        })?;
        buf.truncate(len);
        String::from_utf8(buf).map_err(|_| invalid("the Prometheus text is not UTF-8"))
    }
}
