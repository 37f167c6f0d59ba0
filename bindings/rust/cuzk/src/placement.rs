//! Where a key's bases live on one device (`cuzk_srs_placement`).
use std::ops::Deref;

use cuzk_sys as sys;

use crate::engine::Srs;
use crate::error::{check, Result};

/// How a key's bases are held on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementKind {
    /// Every base on the device.
    Resident,
    /// The bases that cost most to stream stay on the device, the rest are copied per MSM.
    Partial,
    /// Every base copied from page-locked host memory per partition.
    Streamed,
    /// The engine proves on the CPU.
    Host,
}

/// A key's placement on one device: every member of [`sys::cuzk_placement`] reads through
/// `Deref` (`p.resident_bytes`, `p.slots`, ...; documented there), read-only, and the kind
/// typed.
#[derive(Clone, Debug)]
pub struct Placement {
    pub kind: PlacementKind,
    raw: sys::cuzk_placement,
}

impl Deref for Placement {
    type Target = sys::cuzk_placement;
    fn deref(&self) -> &sys::cuzk_placement {
        &self.raw
    }
}

impl Srs<'_> {
    /// This key's placement on the engine's device `device_index` (0 on the CPU backend,
    /// where the kind is [`PlacementKind::Host`]).
    pub fn placement(&self, device_index: u32) -> Result<Placement> {
        let size = std::mem::size_of::<sys::cuzk_placement>() as u32;
        let mut raw = sys::cuzk_placement { struct_size: size, ..Default::default() };
        check(unsafe { sys::cuzk_srs_placement(self.raw(), device_index, &mut raw) })?;
        let kind = match raw.kind {
            sys::CUZK_PLACEMENT_RESIDENT => PlacementKind::Resident,
            sys::CUZK_PLACEMENT_PARTIAL => PlacementKind::Partial,
            sys::CUZK_PLACEMENT_STREAMED => PlacementKind::Streamed,
            _ => PlacementKind::Host,
        };
        Ok(Placement { kind, raw })
    }
}
