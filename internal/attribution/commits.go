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

package attribution

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// diff is the change of a Mirror's plan as its commits are cut: the files
// it writes and removes, and what it was decided on (git.Change).
type diff struct {
	puts    map[string]git.File
	deletes []string
	expect  map[string]string
}

// Parts splits the files of c, the change of a Mirror over folder whose
// join decided at, into one commit per author, ordered by when each
// author's first change came; the marker goes with the last, and an
// expectation of a path nothing writes with the first. msg renders the
// message of a commit of n files.
func Parts(folder string, c git.Change, at *Decision, msg func(n int) (string, error)) ([]git.Part, error) {
	return parts(folder, diff{puts: c.Puts, deletes: c.Deletes, expect: c.Expect}, at.attributed, msg)
}

// parts splits d into one commit per author, ordered by when each author's
// first change came; the marker goes with the last, so that it lists the
// files once they are all there. An expectation of a path nothing writes
// (the marker's, when it stays) goes with the first: it is what the plan
// read.
func parts(folder string, d diff, at attributed, msg func(n int) (string, error)) ([]git.Part, error) {
	g := grouping{byAuthor: map[authorBy]*group{}}
	for full, f := range d.puts {
		g.add(folder, full, &f, d, at)
	}
	for _, full := range d.deletes {
		g.add(folder, full, nil, d, at)
	}
	out, err := g.commits(msg)
	if err != nil {
		return nil, err
	}
	for full, sha := range d.expect {
		if _, put := d.puts[full]; put || slices.Contains(d.deletes, full) {
			continue
		}
		expectIn(&out[0], full, sha)
	}
	return out, nil
}

// group is one author's commit.
type group struct {
	author    git.Signature
	by        string
	coauthors []git.Signature
	when      time.Time
	part      git.Part
}

// authorBy is an author and what named them: one commit each, so that its
// Attributed-By trailer is true of every change in it.
type authorBy struct {
	author git.Signature
	by     string
}

// grouping sorts a diff's files into their authors' commits; rest holds
// the files no attribution names (the marker).
type grouping struct {
	byAuthor map[authorBy]*group
	rest     git.Part
}

func (g *grouping) add(folder, full string, put *git.File, d diff, at attributed) {
	rel, _ := mirror.Rel(folder, full)
	tgt := &g.rest
	if v, ok := at.byPath[rel]; ok {
		k := authorBy{author: v.author, by: v.by}
		gr := g.byAuthor[k]
		if gr == nil {
			gr = &group{author: v.author, by: v.by, when: v.when}
			g.byAuthor[k] = gr
		}
		if v.when.Before(gr.when) {
			gr.when = v.when
		}
		for _, c := range v.coauthors {
			if c != gr.author && !slices.Contains(gr.coauthors, c) {
				gr.coauthors = append(gr.coauthors, c)
			}
		}
		tgt = &gr.part
	}
	if put != nil {
		if tgt.Puts == nil {
			tgt.Puts = map[string]git.File{}
		}
		tgt.Puts[full] = *put
	} else {
		tgt.Deletes = append(tgt.Deletes, full)
	}
	if sha, ok := d.expect[full]; ok {
		expectIn(tgt, full, sha)
	}
}

// commits are the groups in order, each with its message, the rest with
// the last.
func (g *grouping) commits(msg func(n int) (string, error)) ([]git.Part, error) {
	ordered := make([]*group, 0, len(g.byAuthor))
	for _, gr := range g.byAuthor {
		ordered = append(ordered, gr)
	}
	slices.SortFunc(ordered, func(x, y *group) int {
		return cmp.Or(x.when.Compare(y.when), strings.Compare(x.author.Name, y.author.Name), strings.Compare(x.author.Email, y.author.Email), strings.Compare(x.by, y.by))
	})
	out := make([]git.Part, 0, len(ordered)+1)
	for _, gr := range ordered {
		slices.Sort(gr.part.Deletes)
		m, err := msg(len(gr.part.Puts) + len(gr.part.Deletes))
		if err != nil {
			return nil, err
		}
		gr.part.Message = withTrailers(m, gr.by, gr.coauthors)
		gr.part.Author = gr.author
		out = append(out, gr.part)
	}
	if len(out) == 0 {
		out = append(out, git.Part{})
	}
	last := &out[len(out)-1]
	for full, f := range g.rest.Puts {
		if last.Puts == nil {
			last.Puts = map[string]git.File{}
		}
		last.Puts[full] = f
	}
	last.Deletes = append(last.Deletes, g.rest.Deletes...)
	for full, sha := range g.rest.Expect {
		expectIn(last, full, sha)
	}
	return out, nil
}

// expectIn adds the expectation that full holds sha to p.
func expectIn(p *git.Part, full, sha string) {
	if p.Expect == nil {
		p.Expect = map[string]string{}
	}
	p.Expect[full] = sha
}

// withTrailers adds the Attributed-By trailer (by; none when empty) and a
// Co-authored-by trailer per co-author, in one trailer block.
func withTrailers(msg, by string, co []git.Signature) string {
	return WithTrailers(msg, trailerBlock(by, co))
}

// trailerBlock is the Attributed-By trailer (by; none when empty) and a
// Co-authored-by trailer per co-author, one a line.
func trailerBlock(by string, co []git.Signature) string {
	var lines []string
	if by != "" {
		lines = append(lines, TrailerAttributedBy+": "+by)
	}
	for _, c := range co {
		lines = append(lines, "Co-authored-by: "+c.Name+" <"+c.Email+">")
	}
	return strings.Join(lines, "\n")
}

// WithTrailers adds the trailer block (AuthorObjects) to msg; msg as it is
// when the block is empty.
func WithTrailers(msg, block string) string {
	if block == "" {
		return msg
	}
	return strings.TrimRight(msg, "\n") + "\n\n" + block
}

// joined attributes a change to its facts: the last writer who is not
// ignored is the author; the others are co-authors.
func joined(fs []audit.Fact, m Mirror, who *authors) attribution {
	at := attribution{verdict: resolved, when: fs[0].Arrived, spent: fs[len(fs)-1].Arrived.Add(time.Nanosecond), by: ByAudit}
	// A deletion by ignored users alone is committed, and names them.
	last := len(fs) - 1
	for i := len(fs) - 1; i >= 0; i-- {
		if !ignoredAudit(fs[i], m) {
			last = i
			break
		}
	}
	at.author = who.of(fs[last])
	seen := map[git.Signature]bool{at.author: true}
	for i, f := range fs {
		if i == last || ignoredAudit(f, m) {
			continue
		}
		s := who.of(f)
		if !seen[s] {
			seen[s] = true
			at.coauthors = append(at.coauthors, s)
		}
	}
	return at
}

// allIgnored reports whether every fact names an ignored user or field
// manager of m.
func allIgnored(fs []audit.Fact, m Mirror) bool {
	for _, f := range fs {
		if !ignoredAudit(f, m) {
			return false
		}
	}
	return len(fs) > 0
}

// ignoredAudit reports whether f names a user or field manager m ignores.
func ignoredAudit(f audit.Fact, m Mirror) bool {
	return ignores(m, f.User.Username, f.FieldManager)
}

// ignores reports whether m ignores the user or the field manager.
func ignores(m Mirror, user, manager string) bool {
	return slices.Contains(m.Ignore, user) || (manager != "" && slices.Contains(m.IgnoreManagers, manager))
}

// AuthorObjects names, on each of ps (one object's change each: commit
// PerChange, or the changes of an InPlace plan), the author and co-authors
// the join at found for its object, rels[i] (its layout path relative to
// the folder, as the join knows it); a part whose object the join does not
// name (the marker alone: rels[i] names none) keeps the default. It returns
// each part's trailer block (Attributed-By and Co-authored-by; "" where it
// kept the default), which WithTrailers adds to another message.
func AuthorObjects(ps []git.Part, rels []string, at *Decision) []string {
	blocks := make([]string, len(ps))
	for i := range ps {
		v, ok := at.byPath[rels[i]]
		if !ok {
			continue
		}
		blocks[i] = trailerBlock(v.by, v.coauthors)
		ps[i].Author = v.author
		ps[i].Message = WithTrailers(ps[i].Message, blocks[i])
	}
	return blocks
}
