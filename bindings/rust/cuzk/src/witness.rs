//! Owned witness buffers: one block of engine host memory (`cuzk_host_alloc`) holding every
//! buffer of one partition. Submitting moves the block into the engine; it comes back with
//! the job's result, ready for the next partition. That is what makes submitting it safe
//! without a scope: the host cannot free (or even reach) a block while a job reads it.
use std::ptr::{self, NonNull};
use std::slice;

use cuzk_sys as sys;

use crate::error::{check, invalid, Error, Result};
use crate::partition::{density_words, Partition, ScalarForm, Shape};
use crate::{Engine, Fr};

/// A block's address and its shape: what the engine keeps while a job reads the block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    mem: NonNull<u8>,
    shape: Shape,
    scalar_form: ScalarForm,
    priority: i32,
}

// SAFETY: a Held is the address of engine host memory that no one else can reach while it
// is held; moving it between threads moves nothing but the address.
unsafe impl Send for Held {}

/// Where each buffer starts in a block, in bytes: a, b, c, inputs, aux (scalars), then the
/// density words a_aux, b_aux, b_input. Scalars first keeps every buffer 8-byte aligned in a
/// 64-byte aligned block.
struct Layout {
    a: usize,
    b: usize,
    c: usize,
    inputs: usize,
    aux: usize,
    a_aux_density: usize,
    b_aux_density: usize,
    b_input_density: usize,
}

impl Layout {
    /// Only for shapes whose `bytes()` was checked (no overflow) when the block was made.
    fn of(s: &Shape) -> Layout {
        let fr = std::mem::size_of::<Fr>();
        let a = 0;
        let b = a + s.abc_len * fr;
        let c = b + s.abc_len * fr;
        let inputs = c + s.abc_len * fr;
        let aux = inputs + s.num_inputs * fr;
        let a_aux_density = aux + s.num_aux * fr;
        let b_aux_density = a_aux_density + density_words(s.num_aux) * 8;
        let b_input_density = b_aux_density + density_words(s.num_aux) * 8;
        Layout { a, b, c, inputs, aux, a_aux_density, b_aux_density, b_input_density }
    }
}

/// Every buffer of a [`Witness`], mutable at once (they do not overlap).
pub struct WitnessMut<'w> {
    pub a: &'w mut [Fr],
    pub b: &'w mut [Fr],
    pub c: &'w mut [Fr],
    pub inputs: &'w mut [Fr],
    pub aux: &'w mut [Fr],
    pub a_aux_density: &'w mut [u64],
    pub b_input_density: &'w mut [u64],
    pub b_aux_density: &'w mut [u64],
}

/// One partition's buffers in engine host memory, owned: fill them ([`Witness::parts_mut`]),
/// submit ([`Engine::submit`]), get them back with the result. Dropping it returns the memory
/// to the engine's budget. It borrows its engine, which therefore outlives it.
pub struct Witness<'e> {
    engine: &'e Engine,
    mem: NonNull<u8>,
    shape: Shape,
    pub scalar_form: ScalarForm,
    /// Higher first (0..7); FIFO within a priority.
    pub priority: i32,
    /// Echoed in the job's outcome and trace events.
    pub tag: u64,
}

// SAFETY: a Witness owns its block (no one else can reach it), like a Vec; the engine it
// borrows is Sync, and cuzk_host_free is thread-safe. Shared access gives only `&[Fr]`.
unsafe impl Send for Witness<'_> {}
unsafe impl Sync for Witness<'_> {}

impl std::fmt::Debug for Witness<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Witness")
            .field("shape", &self.shape)
            .field("scalar_form", &self.scalar_form)
            .field("priority", &self.priority)
            .field("tag", &self.tag)
            .finish()
    }
}

impl<'e> Witness<'e> {
    pub(crate) fn new(engine: &'e Engine, shape: Shape) -> Result<Witness<'e>> {
        let bytes = shape.bytes().ok_or_else(|| invalid(format!("{shape:?} overflows the address space")))?.max(8);
        let mut p = ptr::null_mut();
        check(unsafe { sys::cuzk_host_alloc(engine.raw(), bytes, &mut p) })?;
        let mem = NonNull::new(p as *mut u8).ok_or_else(|| invalid("cuzk_host_alloc returned NULL"))?;
        // Zeroed because the block becomes `&mut [Fr]`: integers must be initialized.
        unsafe { ptr::write_bytes(mem.as_ptr(), 0, bytes) };
        Ok(Witness { engine, mem, shape, scalar_form: ScalarForm::Montgomery, priority: 0, tag: 0 })
    }

    /// A copy of a borrowed partition in engine host memory (its scalar form, priority and
    /// tag included; r and s are not kept: an owned witness always draws them).
    pub fn from_partition(engine: &'e Engine, p: &Partition<'_>) -> Result<Witness<'e>> {
        p.to_raw()?; // the lengths, checked before any copy
        let mut w = Witness::new(engine, p.shape())?;
        w.scalar_form = p.scalar_form;
        w.priority = p.priority;
        w.tag = p.tag;
        let d = w.parts_mut();
        d.a.copy_from_slice(p.a);
        d.b.copy_from_slice(p.b);
        d.c.copy_from_slice(p.c);
        d.inputs.copy_from_slice(p.inputs);
        d.aux.copy_from_slice(p.aux);
        let n = d.a_aux_density.len();
        d.a_aux_density.copy_from_slice(&p.a_aux_density[..n]);
        d.b_aux_density.copy_from_slice(&p.b_aux_density[..n]);
        let n = d.b_input_density.len();
        d.b_input_density.copy_from_slice(&p.b_input_density[..n]);
        Ok(w)
    }

    pub(crate) fn from_held(engine: &'e Engine, h: Held, tag: u64) -> Witness<'e> {
        Witness { engine, mem: h.mem, shape: h.shape, scalar_form: h.scalar_form, priority: h.priority, tag }
    }

    /// What the engine keeps while the block is in flight; the caller forgets `self`.
    pub(crate) fn held(&self) -> Held {
        Held { mem: self.mem, shape: self.shape, scalar_form: self.scalar_form, priority: self.priority }
    }

    pub(crate) fn engine(&self) -> &'e Engine {
        self.engine
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    // In bounds: the block was sized by this shape's Layout when it was allocated.
    fn fr(&self, off: usize) -> *mut Fr {
        unsafe { self.mem.as_ptr().add(off) }.cast()
    }

    fn word(&self, off: usize) -> *mut u64 {
        unsafe { self.mem.as_ptr().add(off) }.cast()
    }

    /// Every buffer, mutable.
    pub fn parts_mut(&mut self) -> WitnessMut<'_> {
        let (s, l) = (self.shape, Layout::of(&self.shape));
        let (wa, wi) = (density_words(s.num_aux), density_words(s.num_inputs));
        // SAFETY: disjoint ranges of the block this Witness owns (Layout), initialized (zeroed
        // at allocation), aligned (64-byte block, 32- and 8-byte strides), and borrowed
        // mutably from `self` for the slices' lifetime.
        unsafe {
            WitnessMut {
                a: slice::from_raw_parts_mut(self.fr(l.a), s.abc_len),
                b: slice::from_raw_parts_mut(self.fr(l.b), s.abc_len),
                c: slice::from_raw_parts_mut(self.fr(l.c), s.abc_len),
                inputs: slice::from_raw_parts_mut(self.fr(l.inputs), s.num_inputs),
                aux: slice::from_raw_parts_mut(self.fr(l.aux), s.num_aux),
                a_aux_density: slice::from_raw_parts_mut(self.word(l.a_aux_density), wa),
                b_aux_density: slice::from_raw_parts_mut(self.word(l.b_aux_density), wa),
                b_input_density: slice::from_raw_parts_mut(self.word(l.b_input_density), wi),
            }
        }
    }

    /// The buffers as a borrowed [`Partition`] (with this witness's form, priority and tag).
    pub fn view(&self) -> Partition<'_> {
        let (s, l) = (self.shape, Layout::of(&self.shape));
        let (wa, wi) = (density_words(s.num_aux), density_words(s.num_inputs));
        // SAFETY: as in parts_mut, shared.
        unsafe {
            Partition {
                scalar_form: self.scalar_form,
                a: slice::from_raw_parts(self.fr(l.a), s.abc_len),
                b: slice::from_raw_parts(self.fr(l.b), s.abc_len),
                c: slice::from_raw_parts(self.fr(l.c), s.abc_len),
                inputs: slice::from_raw_parts(self.fr(l.inputs), s.num_inputs),
                aux: slice::from_raw_parts(self.fr(l.aux), s.num_aux),
                a_aux_density: slice::from_raw_parts(self.word(l.a_aux_density), wa),
                b_input_density: slice::from_raw_parts(self.word(l.b_input_density), wi),
                b_aux_density: slice::from_raw_parts(self.word(l.b_aux_density), wa),
                r: None,
                s: None,
                priority: self.priority,
                tag: self.tag,
            }
        }
    }

    /// The public inputs (ONE excluded), as [`verify`](crate::verify) takes them.
    pub fn public(&self) -> &[Fr] {
        self.view().public()
    }
}

impl Drop for Witness<'_> {
    fn drop(&mut self) {
        // Not in flight (a submitted witness is forgotten, not dropped), so freeing is ours.
        unsafe { sys::cuzk_host_free(self.engine.raw(), self.mem.as_ptr().cast()) }
    }
}

/// [`Engine::submit`] failed: why, and the witness, still the host's.
#[derive(Debug)]
pub struct SubmitError<'e> {
    pub error: Error,
    pub witness: Witness<'e>,
}

impl<'e> SubmitError<'e> {
    pub(crate) fn new(error: Error, witness: Witness<'e>) -> SubmitError<'e> {
        SubmitError { error, witness }
    }
}

impl std::fmt::Display for SubmitError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for SubmitError<'_> {}

/// `?` in a function returning `cuzk::Result` drops the witness and keeps the error.
impl From<SubmitError<'_>> for Error {
    fn from(e: SubmitError<'_>) -> Error {
        e.error
    }
}
