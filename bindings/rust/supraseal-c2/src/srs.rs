//! `SRS`: supraseal-c2's handle to a loaded proving key, one pointer (`#[repr(C)]`). Here the
//! pointer is an `Arc<Key>` turned raw, so `Clone` shares the key and the last `Drop`
//! releases it (`cuzk_srs_release`; jobs in flight keep the key alive inside libcuzk).
use std::ffi::{c_void, CString};
use std::path::PathBuf;
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex};

use cuzk_sys as sys;

use crate::cuda::Error;
use crate::engine::{engine, last_error, strerror};

/// A key loaded into the process engine.
pub(crate) struct Key {
    pub(crate) raw: NonNull<sys::cuzk_srs>,
    /// The file it came from, for the cache.
    path: CString,
}

// SAFETY: submitting with a key and cuzk_srs_release are thread-safe (the engine is never
// destroyed, the one call they must not race).
unsafe impl Send for Key {}
unsafe impl Sync for Key {}

impl Drop for Key {
    fn drop(&mut self) {
        unsafe { sys::cuzk_srs_release(self.raw.as_ptr()) }
    }
}

/// Keys loaded with `cache = true`, by path, until `evict`. A handful per process: a list.
static CACHE: Mutex<Vec<Arc<Key>>> = Mutex::new(Vec::new());

#[repr(C)]
#[derive(Debug)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    /// No key: proving with it fails with `CUZK_EINVAL` (supraseal-c2 has the same default).
    fn default() -> SRS {
        SRS { ptr: ptr::null() }
    }
}

// SAFETY: the pointee is an Arc<Key>, and Key is Send + Sync.
unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}

impl SRS {
    /// Loads a bellperson parameter file into the process engine (made now if this is the
    /// first key; its options come from the `CUZK_*` environment variables). With `cache`,
    /// the key is kept by path until [`SRS::evict`], and a second `try_new` of that path with
    /// `cache` shares it instead of loading it again.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<SRS, Error> {
        let path = CString::new(std::os::unix::ffi::OsStrExt::as_bytes(srs_path.as_os_str())).map_err(|_| {
            Error::new(sys::CUZK_EINVAL, format!("SRS::try_new: {} contains a NUL", srs_path.display()))
        })?;
        let e = engine()?;
        // The lock is held across the load: a second caller of the same path waits for the
        // first and shares its key instead of loading 47 GB twice.
        let mut cached = cache.then(|| CACHE.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some(key) = cached.as_ref().and_then(|c| c.iter().find(|k| k.path == path)) {
            return Ok(SRS::of(key.clone()));
        }
        let mut raw = ptr::null_mut();
        let rc = unsafe { sys::cuzk_srs_load(e.raw(), path.as_ptr(), 0, &mut raw) };
        let raw = match NonNull::new(raw) {
            Some(raw) if rc == sys::CUZK_OK => raw,
            _ => {
                let why = format!("SRS::try_new({}): {}: {}", srs_path.display(), strerror(rc), last_error());
                return Err(Error::new(rc, why));
            }
        };
        let key = Arc::new(Key { raw, path });
        if let Some(c) = cached.as_mut() {
            c.push(key.clone());
        }
        Ok(SRS::of(key))
    }

    /// Takes this key out of the cache (if it is there), so it is released with its last
    /// handle. Like supraseal's on libcuzk-supraseal.so, it cannot drop a key's device copy
    /// while the key is held; an idle key gives way on the GPU by itself (docs/supraseal.md).
    pub fn evict(&self) {
        let Some(key) = self.key() else { return };
        let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        c.retain(|k| !ptr::eq(Arc::as_ptr(k), key));
    }

    fn of(key: Arc<Key>) -> SRS {
        SRS { ptr: Arc::into_raw(key) as *const c_void }
    }

    pub(crate) fn key(&self) -> Option<&Key> {
        // SAFETY: a non-null ptr is an Arc<Key> this handle holds one count of.
        unsafe { (self.ptr as *const Key).as_ref() }
    }
}

impl Clone for SRS {
    fn clone(&self) -> SRS {
        if !self.ptr.is_null() {
            unsafe { Arc::increment_strong_count(self.ptr as *const Key) };
        }
        SRS { ptr: self.ptr }
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            drop(unsafe { Arc::from_raw(self.ptr as *const Key) });
            self.ptr = ptr::null();
        }
    }
}
