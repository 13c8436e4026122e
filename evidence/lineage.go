package evidence

// Lineage clusters group records that concern one body of work: records
// whose canonical memories, version roots, content hashes or
// derivedFrom/extends/supersedes links connect, directly or through other
// records, fall into one cluster, and so do mirrored records and a
// resolution with its contradiction. A cluster is named by its smallest
// record id.
//
// An assessment as of a day sees only the records dated on or before it
// (SPEC.md §4.2): ClustersAsOf clusters those alone, so a record dated
// later can never join two earlier records into one cluster.

// Cluster returns the name of the lineage cluster of the record at index i,
// over the whole set.
func (s *Set) Cluster(i int) string { return s.clusters[s.cluster[i]] }

// Clusters is a lineage clustering of some of a set's records.
type Clusters struct {
	of    []int32  // cluster index of each record; -1 when left out
	names []string // name of each cluster: its smallest record id
}

// Of returns the cluster index of the record at index i, below Len, or -1
// when the record is dated after the clustering's day.
func (c *Clusters) Of(i int) int32 { return c.of[i] }

// Name returns the name of the cluster of the record at index i (its
// smallest record id), or "" when the record is left out.
func (c *Clusters) Name(i int) string {
	if c.of[i] < 0 {
		return ""
	}
	return c.names[c.of[i]]
}

// Len returns the number of clusters.
func (c *Clusters) Len() int { return len(c.names) }

// ClustersAsOf clusters the records dated on or before at, as if the later
// ones were not in the set. When no record is later it is the set's own
// clustering.
func (s *Set) ClustersAsOf(at Date) *Clusters {
	if len(s.byDate) == 0 || s.records[s.byDate[0]].Date.Sub(at) <= 0 {
		of := make([]int32, len(s.cluster))
		for i, c := range s.cluster {
			of[i] = int32(c)
		}
		return &Clusters{of: of, names: s.clusters}
	}
	of, names, _ := s.link(func(r *Record) bool { return r.Date.Sub(at) <= 0 })
	return &Clusters{of: of, names: names}
}

// linkStats are what clustering the whole set counts for its limits.
type linkStats struct {
	memories, nodes, links int
}

// link clusters the records for which include holds with a union-find over
// records and lineage nodes.
func (s *Set) link(include func(*Record) bool) ([]int32, []string, linkStats) {
	n := len(s.records)
	parent := make([]int, n, n+n/2)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra != rb {
			if ra < rb {
				parent[rb] = ra
			} else {
				parent[ra] = rb
			}
		}
	}
	node := make(map[string]int, n) // lineage node -> its union-find element
	memories := make(map[string]bool, min(n, MaxMemories))
	var st linkStats
	for i := range s.records {
		r := &s.records[i]
		if !include(r) {
			continue
		}
		if r.Lineage != nil && r.Lineage.Memory != "" {
			memories[r.Lineage.Memory] = true
		}
		st.links += r.Lineage.links()
		for v := range r.Lineage.nodes() {
			j, ok := node[v]
			if !ok {
				j = len(parent)
				parent = append(parent, j)
				node[v] = j
			}
			union(i, j)
		}
		if r.MirrorOf != "" {
			if j := s.byID[r.MirrorOf]; include(&s.records[j]) {
				union(i, j)
			}
		}
		if r.Resolves != "" {
			if j := s.byID[r.Resolves]; include(&s.records[j]) {
				union(i, j)
			}
		}
	}
	st.memories, st.nodes = len(memories), len(node)
	of := make([]int32, n)
	var names []string
	index := make(map[int]int32) // union-find root -> cluster index
	for i := range s.records {
		if !include(&s.records[i]) {
			of[i] = -1
			continue
		}
		root := find(i)
		c, ok := index[root]
		if !ok {
			c = int32(len(names))
			index[root] = c
			names = append(names, s.records[i].ID)
		}
		of[i] = c
		if s.records[i].ID < names[c] {
			names[c] = s.records[i].ID
		}
	}
	return of, names, st
}

// clusterLineage clusters the whole set and checks the lineage limits.
func (s *Set) clusterLineage() error {
	of, names, st := s.link(func(*Record) bool { return true })
	switch {
	case st.memories > MaxMemories:
		return overLimit(CodeTooManyMemories, "%d memories; the limit is %d", st.memories, MaxMemories)
	case st.nodes > MaxLineageNodes:
		return overLimit(CodeTooManyLineageNodes, "%d lineage nodes; the limit is %d", st.nodes, MaxLineageNodes)
	case st.links > MaxLinks:
		return overLimit(CodeTooManyLinks, "%d lineage links; the limit is %d", st.links, MaxLinks)
	}
	s.cluster = make([]int, len(of))
	for i, c := range of {
		s.cluster[i] = int(c)
	}
	s.clusters = names
	return nil
}
