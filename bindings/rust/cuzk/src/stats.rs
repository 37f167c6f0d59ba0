//! A typed snapshot of the engine's counters (`cuzk_stats`) and its Prometheus text.
use std::ops::Deref;
use std::ptr;

use cuzk_sys as sys;

use crate::error::{check, invalid, Result};
use crate::Backend;

/// The engine's counters at one moment (read one by one, not as one atomic snapshot): every
/// member of [`sys::cuzk_stats`] reads through `Deref` (`stats.submitted`, `stats.trace_dropped`,
/// ...; documented there), read-only, and the backend typed.
#[derive(Clone, Debug)]
pub struct Stats {
    pub backend: Backend,
    raw: sys::cuzk_stats,
}

impl Deref for Stats {
    type Target = sys::cuzk_stats;
    fn deref(&self) -> &sys::cuzk_stats {
        &self.raw
    }
}

impl Stats {
    pub(crate) fn from_raw(s: sys::cuzk_stats) -> Stats {
        Stats { backend: Backend::from_raw(s.backend), raw: s }
    }

    /// The snapshot in the Prometheus text format (served on a /metrics endpoint).
    /// `device_busy_ns[i]` is GPU i's busy time (on the CPU backend one entry, the CPU), the
    /// sums of [`TraceKind::START`](crate::TraceKind::START) spans; empty leaves that metric
    /// out.
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
