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

package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// The bad-input corpus for managed resources: each case is rejected by the
// API server with a message that says what is wrong, before any controller
// (or Git) sees it. internal/validate checks the same rules again in code.

func validFile() v1alpha1.FileParameters {
	return v1alpha1.FileParameters{Branch: "main", Path: "apps/demo/config.yaml", Content: ptr.To("a: 1\n")}
}

func TestFileValidation(t *testing.T) {
	configMap := &runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"a":"1"}}`)}
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.FileParameters)
		want   string // substring of the API server's error; empty means accepted
	}{
		"Content":            {reason: "A plain file.", mutate: func(*v1alpha1.FileParameters) {}},
		"Object":             {reason: "An embedded Kubernetes object.", mutate: func(p *v1alpha1.FileParameters) { p.Content, p.Object = nil, configMap }},
		"NestedBranch":       {reason: "Slashes make branch folders.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "release/v1.2" }},
		"DotFile":            {reason: "A dot file is not a .git path.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".github/workflows/ci.yaml" }},
		"Executable":         {reason: "Scripts may be executable.", mutate: func(p *v1alpha1.FileParameters) { p.Mode = v1alpha1.FileModeExecutable }},
		"Both":               {reason: "Content and object together are ambiguous.", mutate: func(p *v1alpha1.FileParameters) { p.Object = configMap }, want: "exactly one of content or object"},
		"Neither":            {reason: "A file needs content.", mutate: func(p *v1alpha1.FileParameters) { p.Content = nil }, want: "exactly one of content or object"},
		"AbsolutePath":       {reason: "Paths are relative to the repository root.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "/etc/passwd" }, want: "path must be relative and clean"},
		"DotDot":             {reason: "No escaping the repository.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps/../../x" }, want: "path must be relative and clean"},
		"DotComponent":       {reason: "Unclean paths name one file two ways.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps/./x" }, want: "path must be relative and clean"},
		"DoubleSlash":        {reason: "Unclean paths name one file two ways.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps//x" }, want: "path must be relative and clean"},
		"TrailingSlash":      {reason: "A folder is not a file.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps/" }, want: "path must be relative and clean"},
		"GitDir":             {reason: "Writing into .git would corrupt a clone.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".git/hooks/pre-commit" }, want: "must not be inside a .git directory"},
		"NestedGitDir":       {reason: "Nested .git directories are just as dangerous.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "vendor/x/.git/config" }, want: "must not be inside a .git directory"},
		"UpperGitDir":        {reason: "Case-insensitive file systems see .GIT as .git.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".GIT/config" }, want: "must not be inside a .git directory"},
		"ShortGitDir":        {reason: "GIT~1 is .git's 8.3 short name.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "GIT~1/config" }, want: "must not be inside a .git directory"},
		"TrailingDotGitDir":  {reason: "Windows ignores trailing dots.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "a/.git./config" }, want: "must not be inside a .git directory"},
		"HFSIgnorableGit":    {reason: "HFS+ ignores U+200C, so .git\u200c is .git there and git refuses it.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".git\u200c/config" }, want: "must not be inside a .git directory"},
		"HFSInsideGit":       {reason: "Ignorable code points between the letters too.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "a/.g\ufeffit/x" }, want: "must not be inside a .git directory"},
		"NTFSStreamGit":      {reason: "NTFS reads .git::$INDEX_ALLOCATION as .git.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".git::$INDEX_ALLOCATION/x" }, want: "must not be inside a .git directory"},
		"BackslashGit":       {reason: "Windows reads a backslash as a separator.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "a\\.git\\config" }, want: "must not be inside a .git directory"},
		"IgnorableElsewhere": {reason: "An ignorable code point before other letters is another name.", mutate: func(p *v1alpha1.FileParameters) { p.Path = ".git\u200cx/y" }},
		"BranchHEAD":         {reason: "git check-ref-format --branch refuses HEAD.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "HEAD" }, want: "branch must be a valid Git branch name"},
		"BranchFullRef":      {reason: "refs/heads/x would nest, not name that ref.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "refs/heads/x" }, want: "branch must be a valid Git branch name"},
		"ControlCharacter":   {reason: "Control characters in paths break tools.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps/a\tb" }, want: "must not contain control characters"},
		"NewlineInPath":      {reason: "A newline in a path breaks every log.", mutate: func(p *v1alpha1.FileParameters) { p.Path = "apps/a\nb" }, want: "must not contain control characters"},
		"LongPath":           {reason: "Paths are bounded.", mutate: func(p *v1alpha1.FileParameters) { p.Path = strings.Repeat("a", 1025) }, want: "Too long"},
		"HugeContent":        {reason: "Content is capped well under the object size limit.", mutate: func(p *v1alpha1.FileParameters) { p.Content = ptr.To(strings.Repeat("x", 524289)) }, want: "Too long"},
		"BranchDotDot":       {reason: "git check-ref-format forbids '..'.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "a..b" }, want: "branch must be a valid Git branch name"},
		"BranchSpace":        {reason: "git check-ref-format forbids spaces.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "my branch" }, want: "branch must be a valid Git branch name"},
		"BranchLock":         {reason: "git check-ref-format forbids .lock.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "main.lock" }, want: "branch must be a valid Git branch name"},
		"BranchLeadingDash":  {reason: "A leading dash reads as an option.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "-x" }, want: "branch must be a valid Git branch name"},
		"BranchRefsPrefix":   {reason: "A leading slash is not a branch.", mutate: func(p *v1alpha1.FileParameters) { p.Branch = "/main" }, want: "branch must be a valid Git branch name"},
		"BadMode":            {reason: "Only regular and executable files.", mutate: func(p *v1alpha1.FileParameters) { p.Mode = "Symlink" }, want: "Unsupported value"},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			p := validFile()
			tc.mutate(&p)
			f := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("f-%d", i)}, Spec: v1alpha1.FileSpec{ForProvider: p}}
			checkCreate(t, tc.reason, f, tc.want)

			// The same rules again in code must reach the same verdict, so a
			// File stored before a CRD change cannot slip through.
			fieldRule := strings.Contains(tc.want, "path") || strings.Contains(tc.want, "branch") || tc.want == "Too long"
			if tc.want == "" || fieldRule {
				codeErr := validate.Path(p.Path)
				if codeErr == nil {
					codeErr = validate.BranchName(p.Branch)
				}
				if codeErr == nil && p.Content != nil {
					codeErr = validate.Content(*p.Content)
				}
				if (codeErr != nil) != (tc.want != "") {
					t.Errorf("%s\ninternal/validate disagrees with the CRD: CRD wants %q, code says %v", tc.reason, tc.want, codeErr)
				}
			}
		})
	}
}

func TestBranchValidation(t *testing.T) {
	cases := map[string]struct {
		reason string
		params v1alpha1.BranchParameters
		want   string
	}{
		"Plain":      {reason: "A simple branch.", params: v1alpha1.BranchParameters{Branch: "feature/x", From: "main"}},
		"FromSHA":    {reason: "From may be a commit.", params: v1alpha1.BranchParameters{Branch: "hotfix", From: "0123456789abcdef0123456789abcdef01234567"}},
		"Star":       {reason: "git check-ref-format forbids '*'.", params: v1alpha1.BranchParameters{Branch: "feature/*"}, want: "branch must be a valid Git branch name"},
		"DotPart":    {reason: "No component may start with '.'.", params: v1alpha1.BranchParameters{Branch: "a/.hidden"}, want: "branch must be a valid Git branch name"},
		"TrailingDo": {reason: "No trailing dot.", params: v1alpha1.BranchParameters{Branch: "a."}, want: "branch must be a valid Git branch name"},
		"Empty":      {reason: "A branch needs a name.", params: v1alpha1.BranchParameters{}, want: "spec.forProvider.branch"},
		"BadFrom":    {reason: "From is a ref, not an expression.", params: v1alpha1.BranchParameters{Branch: "x", From: "main~1"}, want: "from must be a branch name or a full commit SHA"},
		"HEAD":       {reason: "git check-ref-format --branch refuses HEAD.", params: v1alpha1.BranchParameters{Branch: "HEAD"}, want: "not HEAD"},
		"FullRef":    {reason: "refs/heads/x would become refs/heads/refs/heads/x.", params: v1alpha1.BranchParameters{Branch: "refs/heads/x"}, want: "not starting with refs/"},
		"HEADInside": {reason: "HEAD inside a longer name is a plain branch.", params: v1alpha1.BranchParameters{Branch: "feature/HEAD"}},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			b := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("b-%d", i)}, Spec: v1alpha1.BranchSpec{ForProvider: tc.params}}
			checkCreate(t, tc.reason, b, tc.want)
		})
	}
}

func TestCommitRequestValidation(t *testing.T) {
	valid := func() v1alpha1.CommitRequestParameters {
		return v1alpha1.CommitRequestParameters{Branch: "main", Message: "Add demo\n\nBody.\tTabbed.", Files: []v1alpha1.CommitFile{
			{Path: "a.txt", Content: ptr.To("a")}, {Path: "old.txt", Delete: true},
		}}
	}
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.CommitRequestParameters)
		want   string
	}{
		"Valid":         {reason: "Writes and deletes together.", mutate: func(*v1alpha1.CommitRequestParameters) {}},
		"NoFiles":       {reason: "An empty commit is not a request.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Files = nil }, want: "spec.forProvider.files"},
		"BothKinds":     {reason: "Content and delete together are ambiguous.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Files[0].Delete = true }, want: "exactly one of content, object or delete"},
		"NothingToDo":   {reason: "A file entry must say what to do.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Files[0].Content = nil }, want: "exactly one of content, object or delete"},
		"DuplicatePath": {reason: "One path, one action.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Files[1].Path = "a.txt" }, want: "Duplicate value"},
		"EmptyMessage":  {reason: "A commit needs a message.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Message = "" }, want: "spec.forProvider.message"},
		"ControlInMsg":  {reason: "Escape sequences in commit messages mislead terminals.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Message = "x\x1b[31m" }, want: "message must not contain control characters"},
		"GitPath":       {reason: "Same path rules as File.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Files[0].Path = ".git/config" }, want: "must not be inside a .git directory"},
		"BadBranch":     {reason: "Same branch rules as File.", mutate: func(p *v1alpha1.CommitRequestParameters) { p.Branch = "a b" }, want: "branch must be a valid Git branch name"},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			p := valid()
			tc.mutate(&p)
			cr := &v1alpha1.CommitRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cr-%d", i)}, Spec: v1alpha1.CommitRequestSpec{ForProvider: p}}
			checkCreate(t, tc.reason, cr, tc.want)
		})
	}
}

func validMirror() v1alpha1.MirrorParameters {
	return v1alpha1.MirrorParameters{Branch: "main", Path: "clusters/prod", Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"},
	}}
}

func TestMirrorValidation(t *testing.T) {
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.MirrorParameters)
		want   string // substring of the API server's error; empty means accepted
	}{
		"Valid": {reason: "Kinds by apiVersion and kind.", mutate: func(*v1alpha1.MirrorParameters) {}},
		"Root":  {reason: "'.' is the repository root, set explicitly.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "." }},
		"ByResource": {reason: "A kind by group and plural resource.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Resources[1] = v1alpha1.MirrorResource{Group: ptr.To("apps"), Resource: "deployments"}
		}},
		"CoreResource": {reason: "The core group is the empty group.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Resources[0] = v1alpha1.MirrorResource{Group: ptr.To(""), Resource: "configmaps"}
		}},
		"ResourceNoGroup": {reason: "A resource without a group is a core resource.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0] = v1alpha1.MirrorResource{Resource: "configmaps"} }},
		"Sources":         {reason: "Other namespaces by name.", mutate: func(p *v1alpha1.MirrorParameters) { p.SourceNamespaces = []string{"team-a", "team-b"} }},
		"PruneNever":      {reason: "Git may keep every object that ever existed.", mutate: func(p *v1alpha1.MirrorParameters) { p.Prune = v1alpha1.MirrorPruneNever }},
		"BothWays":        {reason: "apiVersion/kind and group/resource together are ambiguous.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0].Resource = "configmaps" }, want: "set apiVersion and kind, or group and resource"},
		"KindOnly":        {reason: "A kind needs its apiVersion.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0].APIVersion = "" }, want: "set apiVersion and kind, or group and resource"},
		"GroupWithKind":   {reason: "A group belongs with a resource.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0].Group = ptr.To("apps") }, want: "set apiVersion and kind, or group and resource"},
		"BadAPIVersion":   {reason: "An apiVersion has a version.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[1].APIVersion = "apps" }, want: "apiVersion must be version or group/version"},
		"LowerKind":       {reason: "Kinds are CamelCase.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0].Kind = "configmap" }, want: "kind must be a Kubernetes kind"},
		"UpperResource":   {reason: "Resources are lower-case plurals.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources[0] = v1alpha1.MirrorResource{Resource: "ConfigMaps"} }, want: "resource must be a lower-case plural"},
		"BadGroup": {reason: "A group is a DNS subdomain.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Resources[0] = v1alpha1.MirrorResource{Group: ptr.To("Apps_"), Resource: "x"}
		}, want: "group must be a DNS subdomain"},
		"NoResources":      {reason: "A Mirror mirrors something.", mutate: func(p *v1alpha1.MirrorParameters) { p.Resources = nil }, want: "spec.forProvider.resources"},
		"AbsolutePath":     {reason: "Folders are relative to the repository root.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "/etc" }, want: "path must be '.' or relative and clean"},
		"DotDotPath":       {reason: "No escaping the repository.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "a/../.." }, want: "path must be '.' or relative and clean"},
		"TrailingSlash":    {reason: "One folder, one spelling.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "clusters/" }, want: "path must be '.' or relative and clean"},
		"DotInside":        {reason: "'.' is only the root, never a component.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "a/./b" }, want: "path must be '.' or relative and clean"},
		"GitFolder":        {reason: "Writing into .git would corrupt a clone.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "x/.GIT" }, want: "must not be inside a .git directory"},
		"ControlCharacter": {reason: "Control characters in paths break tools.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = "a\tb" }, want: "must not contain control characters"},
		"LongPath":         {reason: "A folder leaves room for the objects' paths below it.", mutate: func(p *v1alpha1.MirrorParameters) { p.Path = strings.Repeat("a", 513) }, want: "Too long"},
		"BadBranch":        {reason: "Same branch rules as File.", mutate: func(p *v1alpha1.MirrorParameters) { p.Branch = "a..b" }, want: "branch must be a valid Git branch name"},
		"BadSource":        {reason: "Namespaces are DNS labels.", mutate: func(p *v1alpha1.MirrorParameters) { p.SourceNamespaces = []string{"Team_A"} }, want: "spec.forProvider.sourceNamespaces[0]"},
		"BadPrune":         {reason: "Only the two policies.", mutate: func(p *v1alpha1.MirrorParameters) { p.Prune = "Sometimes" }, want: "Unsupported value"},
		"InPlace":          {reason: "A Mirror may write where the YAML lives.", mutate: func(p *v1alpha1.MirrorParameters) { p.Layout = v1alpha1.MirrorLayoutInPlace }},
		"BadLayout":        {reason: "Only the two layouts.", mutate: func(p *v1alpha1.MirrorParameters) { p.Layout = "Flat" }, want: "Unsupported value"},
		"InPlacePerChange": {reason: "An in-place edit is one object's commit with PerChange.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Layout, p.Commit = v1alpha1.MirrorLayoutInPlace, v1alpha1.MirrorCommitPerChange
		}},
		"InPlaceAttributed": {reason: "An in-place edit is joined to audit facts by its object.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Layout, p.Attribution = v1alpha1.MirrorLayoutInPlace, v1alpha1.MirrorAttributionAudit
		}},
		"Admission": {reason: "Authors from the admission webhook.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Attribution = v1alpha1.MirrorAttributionAdmission
			p.Ignore = &v1alpha1.MirrorIgnore{Users: []string{"system:serviceaccount:flux-system:kustomize-controller"}}
		}},
		"Auto": {reason: "Authors from admission, else audit, with author templates.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Attribution, p.Author = v1alpha1.MirrorAttributionAuto, &v1alpha1.MirrorAuthor{Name: "{{ .Username }}"}
		}},
		"BadAttribution": {reason: "Only the four sources.", mutate: func(p *v1alpha1.MirrorParameters) { p.Attribution = "Guess" }, want: "Unsupported value"},
		"InPlaceAdmission": {reason: "An in-place edit is joined to admission facts by its object, with one commit per change.", mutate: func(p *v1alpha1.MirrorParameters) {
			p.Layout, p.Attribution, p.Commit = v1alpha1.MirrorLayoutInPlace, v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorCommitPerChange
		}},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			p := validMirror()
			tc.mutate(&p)
			m := &v1alpha1.Mirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("m-%d", i)}, Spec: v1alpha1.MirrorSpec{ForProvider: p}}
			checkCreate(t, tc.reason, m, tc.want)

			// The same field rules in code must reach the same verdict.
			if tc.want == "Unsupported value" || strings.HasPrefix(tc.want, "spec.forProvider.resources") {
				return
			}
			codeErr := validate.Folder(p.Path)
			if codeErr == nil {
				codeErr = validate.BranchName(p.Branch)
			}
			for _, r := range p.Resources {
				if codeErr == nil {
					codeErr = validate.MirrorResource(r.APIVersion, r.Kind, r.Group, r.Resource)
				}
			}
			for _, s := range p.SourceNamespaces {
				if codeErr == nil {
					codeErr = validate.Namespace(s)
				}
			}
			if (codeErr != nil) != (tc.want != "") {
				t.Errorf("%s\ninternal/validate disagrees with the CRD: CRD wants %q, code says %v", tc.reason, tc.want, codeErr)
			}
		})
	}
}

// TestImmutableFields updates fields that must not change after creation.
func TestImmutableFields(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	f := &v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "f"}, Spec: v1alpha1.FileSpec{ForProvider: validFile()}}
	b := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}, Spec: v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: "x"}}}
	cr := &v1alpha1.CommitRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cr"}, Spec: v1alpha1.CommitRequestSpec{ForProvider: v1alpha1.CommitRequestParameters{
		Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{{Path: "a", Content: ptr.To("a")}},
	}}}
	for _, o := range []client.Object{f, b, cr} {
		if err := kube.Create(ctx, o); err != nil {
			t.Fatalf("create %T: %v", o, err)
		}
	}
	cases := map[string]struct {
		reason string
		obj    client.Object
		mutate func()
		want   string
	}{
		"FilePath":      {reason: "Moving a file is a delete and a create.", obj: f, mutate: func() { f.Spec.ForProvider.Path = "other.yaml" }, want: "path is immutable"},
		"FileBranch":    {reason: "Moving a file is a delete and a create.", obj: f, mutate: func() { f.Spec.ForProvider.Branch = "dev" }, want: "branch is immutable"},
		"FileContent":   {reason: "Content is what a File updates.", obj: f, mutate: func() { f.Spec.ForProvider.Content = ptr.To("b: 2\n") }},
		"BranchName":    {reason: "A renamed branch is another branch.", obj: b, mutate: func() { b.Spec.ForProvider.Branch = "y" }, want: "branch is immutable"},
		"CommitRequest": {reason: "A CommitRequest is one commit, made once.", obj: cr, mutate: func() { cr.Spec.ForProvider.Message = "changed" }, want: "a CommitRequest is immutable"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := kube.Get(ctx, client.ObjectKeyFromObject(tc.obj), tc.obj); err != nil {
				t.Fatal(err)
			}
			tc.mutate()
			err := kube.Update(ctx, tc.obj)
			checkErr(t, tc.reason, "Update", err, tc.want)
		})
	}
}

func checkCreate(t *testing.T, reason string, o client.Object, want string) {
	t.Helper()
	checkErr(t, reason, "Create", kube.Create(context.Background(), o), want)
}

func checkErr(t *testing.T, reason, op string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s\n%s: want accepted, got: %v", reason, op, err)
	case want != "" && err == nil:
		t.Errorf("%s\n%s: want an error containing %q, got none", reason, op, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s\n%s: want an error containing %q, got: %v", reason, op, want, err)
	}
}
