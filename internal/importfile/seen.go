package importfile

import "hash/maphash"

// seen remembers the keys of a collection's records (their ids, a
// click's id, a membership's pair) in the order the records come, so
// that a key's position is the index of the record that gave it: a Reader
// stops at its first error, so every record before the one being read
// has added its key. A Go map of key and index would take about twice
// the memory (its slots are half to seven eighths full, each padded);
// here a key costs its own size and a slot of 4 bytes, a half to three
// quarters full: about 15 bytes an id, 23 a click's id.
type seen[K comparable] struct {
	keys  [][]K   // in blocks of seenBlock, so growing copies none
	slots []int32 // open addressing with linear probing: a key's position + 1, or 0 for none
	n     int32   // keys held
	seed  maphash.Seed
}

// seenBlock is the number of keys in a block of seen.keys.
const seenBlock = 1 << 14

// key returns the key at position p.
func (s *seen[K]) key(p int32) K { return s.keys[p/seenBlock][p%seenBlock] }

// add remembers k at the next position, or, if k is there already,
// returns its position and true.
func (s *seen[K]) add(k K) (first int32, dup bool) {
	if s.n >= int32(len(s.slots)/4*3) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := int(maphash.Comparable(s.seed, k)) & mask; ; i = (i + 1) & mask {
		p := s.slots[i]
		if p == 0 {
			s.slots[i] = s.n + 1
			break
		}
		if s.key(p-1) == k {
			return p - 1, true
		}
	}
	if s.n%seenBlock == 0 {
		s.keys = append(s.keys, make([]K, 0, seenBlock))
	}
	last := len(s.keys) - 1
	s.keys[last] = append(s.keys[last], k)
	s.n++
	return 0, false
}

// grow doubles the slots and places the keys again.
func (s *seen[K]) grow() {
	if len(s.slots) == 0 {
		s.seed = maphash.MakeSeed()
	}
	s.slots = make([]int32, max(2*len(s.slots), 1024))
	mask := len(s.slots) - 1
	for p := range s.n {
		i := int(maphash.Comparable(s.seed, s.key(p))) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = p + 1
	}
}
