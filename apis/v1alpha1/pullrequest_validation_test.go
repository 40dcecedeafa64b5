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
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

func TestPullRequestValidation(t *testing.T) {
	valid := func() v1alpha1.PullRequestParameters {
		return v1alpha1.PullRequestParameters{Head: "request/demo", Base: "main", Title: "Add demo", Body: "Files:\n{{range .Files}}- {{.Path}}\n{{end}}",
			Labels: []string{"env"}, Reviewers: []string{"alice"}}
	}
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.PullRequestParameters)
		want   string // substring of the API server's error; empty means accepted
	}{
		"Valid": {reason: "Head, base, title, body template, a label and a reviewer.", mutate: func(*v1alpha1.PullRequestParameters) {}},
		"Auto": {reason: "Auto merge with a method.", mutate: func(p *v1alpha1.PullRequestParameters) {
			p.Merge = v1alpha1.PullRequestMerge{Strategy: v1alpha1.MergeAuto, Method: v1alpha1.MergeMethodSquash}
		}},
		"OptionalReviewer": {reason: "A reviewer whose review is requested, not required.", mutate: func(p *v1alpha1.PullRequestParameters) {
			p.OptionalReviewers = []string{"bob"}
		}},
		"RequiredAndOptional": {reason: "A reviewer is either required or optional.", mutate: func(p *v1alpha1.PullRequestParameters) {
			p.OptionalReviewers = []string{"bob", "alice"}
		}, want: "a reviewer is either required (reviewers) or optional (optionalReviewers), not both"},
		"SameBranch":   {reason: "A pull request from a branch into itself proposes nothing.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Head = "main" }, want: "head and base must be different branches"},
		"BadHead":      {reason: "The head follows the branch rules of every kind.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Head = "a..b" }, want: "head must be a valid Git branch name"},
		"BadBase":      {reason: "So does the base.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Base = "refs/heads/main" }, want: "base must be a valid Git branch name"},
		"NoTitle":      {reason: "Every forge requires a title.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Title = "" }, want: "spec.forProvider.title"},
		"LongTitle":    {reason: "GitHub caps titles at 256 characters.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Title = string(make([]byte, 257)) }, want: "spec.forProvider.title"},
		"TitleControl": {reason: "Escape sequences in a title mislead terminals.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Title = "x\x1b[31m" }, want: "title must not contain control characters"},
		"BadMethod":    {reason: "Only the methods every forge offers.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Merge.Method = "fast-forward" }, want: "spec.forProvider.merge.method"},
		"BadReadiness": {reason: "Open or Merged.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Readiness = "Approved" }, want: "spec.forProvider.readiness"},
		"DupLabel":     {reason: "Labels are a set.", mutate: func(p *v1alpha1.PullRequestParameters) { p.Labels = []string{"a", "a"} }, want: "Duplicate value"},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			p := valid()
			tc.mutate(&p)
			pr := &v1alpha1.PullRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pr-%d", i)}, Spec: v1alpha1.PullRequestSpec{ForProvider: p}}
			checkCreate(t, tc.reason, pr, tc.want)
		})
	}
}
