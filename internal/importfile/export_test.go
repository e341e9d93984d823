package importfile

import "runtime"

// LiveHeap returns the bytes of the heap still in use after a collection,
// for the tests that measure what the Reader remembers: memory, not time.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
