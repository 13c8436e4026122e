package evidence

// Lineage clusters group records that concern one body of work: records
// whose canonical memories, version roots, content hashes or
// derivedFrom/extends/supersedes links connect, directly or through other
// records, fall into one cluster, and so do mirrored records. A cluster is
// named by its smallest record id.

// Cluster returns the name of the lineage cluster of the record at index i.
func (s *Set) Cluster(i int) string { return s.clusters[s.cluster[i]] }

// clusterLineage computes the clusters with a union-find over records and
// lineage nodes, and checks the lineage limits on the way.
func (s *Set) clusterLineage() error {
	n := len(s.records)
	parent := make([]int, n, n+n/2)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
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
	node := make(map[string]int) // lineage node -> its union-find element
	memories, links := map[string]bool{}, 0
	for i, r := range s.records {
		if r.Lineage != nil && r.Lineage.Memory != "" {
			memories[r.Lineage.Memory] = true
		}
		links += r.Lineage.links()
		for _, v := range r.Lineage.nodes() {
			j, ok := node[v]
			if !ok {
				j = len(parent)
				parent = append(parent, j)
				node[v] = j
			}
			union(i, j)
		}
		if r.MirrorOf != "" {
			union(i, s.byID[r.MirrorOf])
		}
		if r.Resolves != "" {
			union(i, s.byID[r.Resolves])
		}
	}
	switch {
	case len(memories) > MaxMemories:
		return overLimit("too_many_memories", "%d memories; the limit is %d", len(memories), MaxMemories)
	case len(node) > MaxLineageNodes:
		return overLimit("too_many_lineage_nodes", "%d lineage nodes; the limit is %d", len(node), MaxLineageNodes)
	case links > MaxLinks:
		return overLimit("too_many_links", "%d lineage links; the limit is %d", links, MaxLinks)
	}
	s.cluster = make([]int, n)
	index := make(map[int]int) // union-find root -> cluster index
	for i := range s.records {
		root := find(i)
		c, ok := index[root]
		if !ok {
			c = len(s.clusters)
			index[root] = c
			s.clusters = append(s.clusters, s.records[i].ID)
		}
		s.cluster[i] = c
		if s.records[i].ID < s.clusters[c] {
			s.clusters[c] = s.records[i].ID
		}
	}
	return nil
}
