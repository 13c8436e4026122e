package issuing

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
)

func (a *adapter) indexOwners() {
	a.owners = map[Key][]OwnerBinding{}
	for _, b := range a.s.Owners {
		a.owners[b.Agent] = append(a.owners[b.Agent], b)
	}
	for _, bs := range a.owners {
		slices.SortFunc(bs, func(x, y OwnerBinding) int { return x.From.Compare(y.From) })
	}
}

// operatorAt returns the operator bound to agent at t, or 0.
func (a *adapter) operatorAt(agent Key, t time.Time) Key {
	bs := a.owners[agent]
	i, _ := slices.BinarySearchFunc(bs, t, func(b OwnerBinding, t time.Time) int {
		if b.From.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return 0
	}
	if b := bs[i-1]; b.Until.IsZero() || t.Before(b.Until) {
		return b.Operator
	}
	return 0
}

// ownership relates an event's actor to the subject (SPEC.md §5.3): self
// for the subject; shared when the actor's operator at the event owned the
// subject then or owns it at issuance; distinct when the subject's owner at
// the event is known and differs; unknown otherwise.
func (a *adapter) ownership(actor Key, t time.Time) (evidence.Ownership, Key) {
	if actor == a.s.Key {
		return evidence.OwnershipSelf, 0
	}
	r := a.operatorAt(actor, t)
	if r == 0 {
		return evidence.OwnershipUnknown, 0
	}
	then, now := a.operatorAt(a.s.Key, t), a.operatorAt(a.s.Key, a.at)
	switch {
	case r == then || r == now:
		return evidence.OwnershipShared, r
	case then != 0:
		return evidence.OwnershipDistinct, r
	}
	return evidence.OwnershipUnknown, 0
}

func keyText(prefix string, k Key) string { return prefix + strconv.FormatInt(int64(k), 10) }

// actor returns the pseudonym of an agent.
func (a *adapter) actor(k Key) string {
	p, ok := a.actors[k]
	if !ok {
		p = a.ps.Actor(keyText("a", k))
		a.actors[k] = p
	}
	return p
}

// operator returns the pseudonym of an operator.
func (a *adapter) operator(k Key) string {
	p, ok := a.ops[k]
	if !ok {
		p = a.ps.Operator(keyText("o", k))
		a.ops[k] = p
	}
	return p
}

// nameMemories decides what each memory is called in records: a public,
// active memory its public id; a public memory hidden by moderation or
// withdrawn a per-passport pseudonym; a private one nothing. Link targets
// that are not the subject's are named by their public id when they may
// be named, else not at all.
func (a *adapter) nameMemories() {
	a.mem = make(map[Key]*Memory, len(a.s.Memories))
	a.name = make(map[Key]string, len(a.s.Memories))
	for i := range a.s.Memories {
		m := &a.s.Memories[i]
		a.mem[m.Key] = m
		switch {
		case m.Visibility != MemoryPublic:
			a.name[m.Key] = ""
		case m.Status == issuer.MemoryActive:
			a.name[m.Key] = string(m.PublicID)
		default:
			a.name[m.Key] = a.ps.Memory(keyText("m", m.Key))
		}
	}
}

// targetName is what a link target or version root is called in records.
func (a *adapter) targetName(t Target) string {
	if n, ok := a.name[t.Key]; ok {
		return n
	}
	if t.Named && strings.HasPrefix(string(t.PublicID), "mem_") {
		return string(t.PublicID)
	}
	return ""
}

// families joins each of the subject's memories with its version root and
// with the link targets that may not be named (private research
// ancestors, hidden memories), transitively, and gives every memory of a
// family the family's smallest name as its versionRoot. So public memories
// distilled from one private ancestor fall into one lineage cluster while
// the ancestor is never named (SPEC.md §5.2).
func (a *adapter) families() {
	parent := map[Key]Key{}
	var find func(Key) Key
	find = func(k Key) Key {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		r := find(p)
		parent[k] = r
		return r
	}
	union := func(x, y Key) {
		rx, ry := find(x), find(y)
		if rx != ry {
			parent[max(rx, ry)] = min(rx, ry)
		}
	}
	names := map[Key]string{}
	for _, m := range a.s.Memories {
		find(m.Key)
		if n := a.name[m.Key]; n != "" {
			names[m.Key] = n
		}
		if m.VersionRoot.Key != 0 {
			union(m.Key, m.VersionRoot.Key)
			if n := a.targetName(m.VersionRoot); n != "" {
				names[m.VersionRoot.Key] = n
			}
		}
		for _, l := range m.Links {
			if l.Kind != issuer.LinkContradicts && a.targetName(l.Target) == "" {
				union(m.Key, l.Target.Key)
			}
		}
	}
	smallest := map[Key]string{}
	for k, n := range names {
		r := find(k)
		if s, ok := smallest[r]; !ok || n < s {
			smallest[r] = n
		}
	}
	a.root = map[Key]string{}
	for _, m := range a.s.Memories {
		if r := smallest[find(m.Key)]; r != "" && r != a.name[m.Key] {
			a.root[m.Key] = r
		}
	}
}

// lineage returns the lineage of a memory's publication: the memory, its
// family's root, its content hash and its named links.
func (a *adapter) lineage(m *Memory) *evidence.Lineage {
	l := &evidence.Lineage{Memory: a.name[m.Key], VersionRoot: a.root[m.Key]}
	if m.Status == issuer.MemoryActive {
		// A hidden memory's hash would identify it as its public id would.
		l.ContentHash = m.ContentHash
	}
	for _, link := range m.Links {
		n := a.targetName(link.Target)
		if n == "" || n == l.Memory {
			continue
		}
		switch link.Kind {
		case issuer.LinkDerivedFrom:
			l.DerivedFrom = append(l.DerivedFrom, n)
		case issuer.LinkExtends:
			l.Extends = append(l.Extends, n)
		case issuer.LinkSupersedes:
			l.Supersedes = append(l.Supersedes, n)
		}
	}
	for _, p := range []*[]string{&l.DerivedFrom, &l.Extends, &l.Supersedes} {
		slices.Sort(*p)
		*p = slices.Compact(*p)
	}
	return l
}
