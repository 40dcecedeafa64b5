/*
Copyright 2026 The provider-git Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package claim detects two resources claiming one thing in Git: two Files
// writing one path of one branch, two Branches owning one branch, and (for
// kinds that claim a whole folder) anything under a claimed folder. The first
// claimant keeps what it claims; every later one is Stalled with reason
// Conflict and writes nothing until the first goes away.
//
// "First" is decided from what the API server stores, never from which
// reconcile ran first: the earlier creationTimestamp, ties broken by
// namespace, name and kind. A restarted provider, whose reconciles run in any
// order, therefore always picks the same holder.
//
// Claims are found through field indexes of the controller-runtime cache
// (index.go), keyed by configuration, branch and a location key (this file),
// so one check costs a handful of in-memory index lookups however many
// resources exist. A repository reached through several configurations (two
// namespaces' ProviderConfigs, a ClusterProviderConfig) is one repository:
// configurations are matched by git.RepositoryKey of their URL.
//
// A kind that claims folders (Mirror) has a Kind whose Loc returns Prefix
// locations and whose Folders is true; it is among the Rivals of File and of
// itself. Rivals are woken when a claimant goes: through Index.Source when
// the woken controller can watch the other kind, through Index.Waker when
// the other kind's CRD may be established only after it started.
package claim

import (
	"strings"
	"time"
)

// A Loc is what one resource claims on one branch of a repository: the
// branch itself (Path "", Prefix false), one path, or (Prefix) every path
// under a folder (Path "" with Prefix: the whole tree).
type Loc struct {
	Branch string
	// Path is slash-separated and relative, without a trailing slash.
	Path   string
	Prefix bool
}

// branchItself reports whether l claims the branch rather than paths on it.
func (l Loc) branchItself() bool { return l.Path == "" && !l.Prefix }

// Overlaps reports whether a and b claim something in common: the same
// branch; the same path; or a path (or folder) inside a claimed folder. A
// file and a folder of the same name overlap too: Git cannot hold both.
// Claims on a branch itself overlap only each other: a Branch and a File on
// it do not compete.
func Overlaps(a, b Loc) bool {
	if a.Branch != b.Branch || a.branchItself() != b.branchItself() {
		return false
	}
	switch {
	case a.branchItself():
		return true
	case a.Prefix && b.Prefix:
		return within(a.Path, b.Path) || within(b.Path, a.Path)
	case a.Prefix:
		return within(b.Path, a.Path)
	case b.Prefix:
		return within(a.Path, b.Path)
	}
	return a.Path == b.Path
}

// within reports whether path is folder or lies under it ("" is the root).
func within(path, folder string) bool {
	return folder == "" || path == folder || strings.HasPrefix(path, folder+"/")
}

// ancestors returns the folders above path, the root ("") first.
func ancestors(path string) []string {
	out := []string{""}
	for i := range len(path) {
		if path[i] == '/' {
			out = append(out, path[:i])
		}
	}
	return out
}

// Location keys. A claim is stored under its own key and, so a folder claim
// can find what lies under it, under an "under" key per folder above it; a
// lookup asks exactly the keys an overlapping claim is stored under.
const (
	keyBranch = "@"
	keyPath   = "="
	keyFolder = "/"
	keyUnder  = "<"
)

// Keys returns the location keys l is stored under.
func Keys(l Loc) []string {
	if l.branchItself() {
		return []string{keyBranch}
	}
	own := keyPath + l.Path
	if l.Prefix {
		own = keyFolder + l.Path
	}
	out := []string{own}
	if l.Prefix && l.Path == "" {
		// The whole tree has nothing above it.
		return out
	}
	for _, a := range ancestors(l.Path) {
		out = append(out, keyUnder+a)
	}
	return out
}

// Queries returns the location keys to look up to find every claim that may
// overlap l: a superset, which Overlaps then narrows. TestKeysFindExactlyTheOverlaps
// checks that no overlapping claim is missed.
func Queries(l Loc) []string {
	if l.branchItself() {
		return []string{keyBranch}
	}
	// Folders above l, and a folder of l's own name.
	var out []string
	if l.Path != "" {
		out = append(out, keyFolder+l.Path)
		for _, a := range ancestors(l.Path) {
			out = append(out, keyFolder+a)
		}
	}
	if !l.Prefix {
		return append(out, keyPath+l.Path)
	}
	// Whatever lies under l, and a file of l's own name.
	out = append(out, keyUnder+l.Path)
	if l.Path == "" {
		// The whole tree: also a claim of the whole tree.
		return append(out, keyFolder)
	}
	return append(out, keyPath+l.Path)
}

// A Claimant is one resource claiming one Loc.
type Claimant struct {
	Kind      string
	Namespace string
	Name      string
	Created   time.Time
	// Deleting claimants hold nothing against a live one: they let go.
	Deleting bool
	// Shared claimants only rely on what they claim: their management
	// policies let them change or delete nothing that another claimant
	// could (a Branch without Delete, an Observe-only File). They are never
	// held off, hold nobody off, and still keep a claimant being deleted
	// from deleting what they rely on.
	Shared bool
	Loc    Loc
}

// String names the claimant as a message names it: kind namespace/name.
func (c Claimant) String() string { return c.Kind + " " + c.Namespace + "/" + c.Name }

// same reports whether c and o are one resource.
func (c Claimant) same(o Claimant) bool {
	return c.Kind == o.Kind && c.Namespace == o.Namespace && c.Name == o.Name
}

// before orders claimants: the earlier creationTimestamp first (the API
// server's second-resolution clock), ties by namespace, name and kind, so
// every process orders the same claimants the same way.
func (c Claimant) before(o Claimant) bool {
	if !c.Created.Equal(o.Created) {
		return c.Created.Before(o.Created)
	}
	if c.Namespace != o.Namespace {
		return c.Namespace < o.Namespace
	}
	if c.Name != o.Name {
		return c.Name < o.Name
	}
	return c.Kind < o.Kind
}

// Holder returns the claimant that keeps what self claims from self, if any:
//   - for a live self, the first live, exclusive (not Shared) claimant
//     overlapping self that comes before it: self is the later claimant and
//     must write nothing. A Shared self is never held off;
//   - for a self being deleted, the first live claimant that either holds
//     self off (self, the later, never wrote, so it has nothing to remove),
//     or claims exactly what self does with self's kind, Shared or not (it
//     keeps or relies on what self wrote). Self then lets go instead of
//     deleting. A later claimant of another kind, or of a location that
//     merely overlaps (a File in a Mirror's folder, a Mirror's folder
//     inside another's), keeps something else there: self removes what it
//     wrote, and the other then writes its own.
//
// Claimants being deleted never hold anything against a live one, so a live
// later claimant takes over as soon as the first starts to go (the first
// then lets go rather than removing what the later one keeps).
func Holder(self Claimant, others []Claimant) (Claimant, bool) {
	if !self.Deleting && self.Shared {
		return Claimant{}, false
	}
	var first Claimant
	found := false
	for _, o := range others {
		if o.same(self) || o.Deleting || !Overlaps(self.Loc, o.Loc) {
			continue
		}
		heldOff := !o.Shared && !self.Shared && o.before(self)
		if self.Deleting && !heldOff && (o.Kind != self.Kind || o.Loc != self.Loc) {
			continue
		}
		if !self.Deleting && (o.Shared || !o.before(self)) {
			continue
		}
		if !found || o.before(first) {
			first, found = o, true
		}
	}
	return first, found
}
