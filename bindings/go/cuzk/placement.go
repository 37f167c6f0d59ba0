package cuzk

/*
#include <cuzk/cuzk.h>
*/
import "C"

import "unsafe"

// PlacementKind says how a key's bases are held on a device.
type PlacementKind int32

const (
	PlacementResident PlacementKind = C.CUZK_PLACEMENT_RESIDENT // every base on the device
	PlacementPartial  PlacementKind = C.CUZK_PLACEMENT_PARTIAL  // the costliest to stream stay, the rest copied per MSM
	PlacementStreamed PlacementKind = C.CUZK_PLACEMENT_STREAMED // every base copied per partition
	PlacementHost     PlacementKind = C.CUZK_PLACEMENT_HOST     // the engine proves on the CPU
)

// Placement is a key's placement on one device (cuzk_srs_placement).
type Placement struct {
	Device              int // CUDA ordinal; -1 on the CPU backend
	Kind                PlacementKind
	Lean                bool   // the worker slots run the two-vector working set
	Slots               uint32 // partitions the device works on at once
	SlotBytes           uint64
	DeviceBudgetBytes   uint64
	ResidentBytes       uint64    // this key's bases kept on the device
	StreamedBytes       uint64    // bases copied per partition at most
	PinnedHostBytes     uint64    // the key's page-locked host memory
	VectorBytes         [5]uint64 // H, L, A, B_G1, B_G2
	VectorResidentBytes [5]uint64 // of which resident
}

// LoadSRSPinned is LoadSRS for a key that must stay ready (WinningPoSt's, CUZK_SRS_PIN): on a
// GPU its bases are resident on every device or the load fails with ErrBudget (load it
// before keys that could take the room).
func (e *Engine) LoadSRSPinned(path string) (*SRS, error) { return e.loadSRS(path, C.CUZK_SRS_PIN) }

// LoadSRSUrgent is LoadSRS for a key whose partitions come at urgent priority (WindowPoSt's,
// CUZK_SRS_URGENT): with urgent workers, each GPU keeps room for an urgent slot of its size,
// taken from its own resident bases, so its partitions start beside a running backlog.
func (e *Engine) LoadSRSUrgent(path string) (*SRS, error) { return e.loadSRS(path, C.CUZK_SRS_URGENT) }

// Placement reads the key's placement on the engine's device deviceIndex (0 on the CPU
// backend, where Kind is PlacementHost).
func (s *SRS) Placement(deviceIndex uint32) (Placement, error) {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.e.live("cuzk_srs_placement"); err != nil {
		return Placement{}, err
	}
	if s.s == nil {
		return Placement{}, &Error{Op: "cuzk_srs_placement", Code: EINVAL, Detail: "the key is closed"}
	}
	var r C.cuzk_placement
	r.struct_size = C.uint32_t(unsafe.Sizeof(r))
	if err := call("cuzk_srs_placement", func() C.int { return C.cuzk_srs_placement(s.s, C.uint32_t(deviceIndex), &r) }); err != nil {
		return Placement{}, err
	}
	p := Placement{
		Device: int(r.device), Kind: PlacementKind(r.kind), Lean: r.working_set == C.CUZK_WORKING_SET_LEAN,
		Slots: uint32(r.slots), SlotBytes: uint64(r.slot_bytes), DeviceBudgetBytes: uint64(r.device_budget_bytes),
		ResidentBytes: uint64(r.resident_bytes), StreamedBytes: uint64(r.streamed_bytes),
		PinnedHostBytes: uint64(r.pinned_host_bytes),
	}
	for i := 0; i < 5; i++ {
		p.VectorBytes[i], p.VectorResidentBytes[i] = uint64(r.vector_bytes[i]), uint64(r.vector_resident_bytes[i])
	}
	return p, nil
}
