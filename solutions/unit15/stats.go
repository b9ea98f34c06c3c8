package unit15

// add adds o's counts to s.
func (s *Stats) add(o Stats) {
	s.Blocks += o.Blocks
	s.Threads += o.Threads
	s.LoadRequests += o.LoadRequests
	s.LoadSectors += o.LoadSectors
	s.StoreRequests += o.StoreRequests
	s.StoreSectors += o.StoreSectors
	s.SharedRequests += o.SharedRequests
	s.BankConflicts += o.BankConflicts
	s.Barriers += o.Barriers
}

// warpLog collects a warp's accesses: its threads' k-th global access
// (and k-th shared access) make one request.
type warpLog struct {
	g []request
	s []request
}

// request is one warp-wide access: the distinct sectors (global) or words
// (shared) its threads touched.
type request struct {
	store bool
	at    []int
}

// global records a thread's k-th global access, to word i.
func (w *warpLog) global(k int, store bool, i int) {
	w.g = record(w.g, k, store, i/(SectorBytes/4))
}

// shared records a thread's k-th shared access, to word i.
func (w *warpLog) shared(k, i int) {
	w.s = record(w.s, k, false, i)
}

// record adds place to request k of rs, once.
func record(rs []request, k int, store bool, place int) []request {
	for len(rs) <= k {
		rs = append(rs, request{store: store})
	}
	r := &rs[k]
	for _, p := range r.at {
		if p == place {
			return rs
		}
	}
	r.at = append(r.at, place)
	return rs
}

// tally adds the warp's requests to s.
func (w *warpLog) tally(s *Stats) {
	for _, r := range w.g {
		if r.store {
			s.StoreRequests++
			s.StoreSectors += len(r.at)
		} else {
			s.LoadRequests++
			s.LoadSectors += len(r.at)
		}
	}
	for _, r := range w.s {
		s.SharedRequests++
		var perBank [Banks]int
		passes := 1
		for _, word := range r.at { // distinct words: the same word is a broadcast, free
			perBank[word%Banks]++
			passes = max(passes, perBank[word%Banks])
		}
		s.BankConflicts += passes - 1
	}
}
