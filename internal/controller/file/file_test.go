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

package file

import (
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

func newFile(p v1alpha1.FileParameters) *v1alpha1.File {
	return &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app"},
		Spec:       v1alpha1.FileSpec{ForProvider: p},
	}
}

// outcome is what a caller can tell from a result: the value, whether it
// failed, and with which stalled reason ("" when the error is transient).
type outcome struct {
	Value  string
	Failed bool
	Reason xpv2.ConditionReason
}

func outcomeOf(v string, err error) outcome {
	if err == nil {
		return outcome{Value: v}
	}
	r, _ := managed.StalledReason(err)
	return outcome{Failed: true, Reason: r}
}

func TestMessage(t *testing.T) {
	type args struct {
		template string
		action   Action
	}
	cases := map[string]struct {
		reason string
		args   args
		want   outcome
	}{
		"DefaultCreate": {
			reason: "Without a template a create says what it creates.",
			args:   args{action: ActionCreate},
			want:   outcome{Value: "Create apps/x.yaml"},
		},
		"DefaultUpdate": {
			reason: "Without a template an update says what it updates.",
			args:   args{action: ActionUpdate},
			want:   outcome{Value: "Update apps/x.yaml"},
		},
		"DefaultDelete": {
			reason: "Without a template a delete says what it removes.",
			args:   args{action: ActionDelete},
			want:   outcome{Value: "Delete apps/x.yaml"},
		},
		"EveryField": {
			reason: "A template sees the action, path, branch, name and namespace.",
			args:   args{template: "{{.Action}} {{.Path}} on {{.Branch}} for {{.Namespace}}/{{.Name}}", action: ActionUpdate},
			want:   outcome{Value: "update apps/x.yaml on main for team-a/app"},
		},
		"TrimmedSpace": {
			reason: "Surrounding white space (a YAML block scalar's newline) is trimmed.",
			args:   args{template: "\n  chore: {{.Action}} {{.Path}}\n\n", action: ActionCreate},
			want:   outcome{Value: "chore: create apps/x.yaml"},
		},
		"MultiLine": {
			reason: "A template may write a body after the subject.",
			args:   args{template: "deploy: {{.Name}}\n\nManaged by {{.Namespace}}.", action: ActionCreate},
			want:   outcome{Value: "deploy: app\n\nManaged by team-a."},
		},
		"EmptyForActionFallsBack": {
			reason: "A template that renders nothing for an action gets the default, so it may cover only some actions.",
			args:   args{template: `{{if eq .Action "delete"}}Retire {{.Path}}{{end}}`, action: ActionCreate},
			want:   outcome{Value: "Create apps/x.yaml"},
		},
		"ConditionalForAction": {
			reason: "The conditional branch of the same template applies to its action.",
			args:   args{template: `{{if eq .Action "delete"}}Retire {{.Path}}{{end}}`, action: ActionDelete},
			want:   outcome{Value: "Retire apps/x.yaml"},
		},
		"ParseError": {
			reason: "A template that does not parse needs a human: InvalidSpec.",
			args:   args{template: "{{.Path", action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
		"UnknownField": {
			reason: "A template naming a field that does not exist fails to execute: InvalidSpec.",
			args:   args{template: "{{.Repository}}", action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
		"RangeSpins": {
			reason: "A range can only spin (nothing a template sees is a collection): {{range 2000000000}}{{end}} would hold a worker for minutes writing nothing, so the cap never stops it. InvalidSpec.",
			args:   args{template: `x{{range 2000000000}}{{end}}`, action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
		"RangeInDefine": {
			reason: "A range hidden in a defined template spins just the same.",
			args:   args{template: `{{define "t"}}{{range 2000000000}}{{end}}{{end}}{{template "t"}}`, action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
		"ControlCharacter": {
			reason: "A template that spells a NUL (its own text holds none, so the CRD passes it) renders a message Git would refuse: InvalidSpec.",
			args:   args{template: `Add{{"\x00"}}`, action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
		"TooLong": {
			reason: "A template that inflates past the cap (printf widths) is refused rather than filling memory.",
			args:   args{template: `{{printf "%999999d" 1}}`, action: ActionCreate},
			want:   outcome{Failed: true, Reason: spec.ReasonInvalidSpec},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFile(v1alpha1.FileParameters{Branch: "main", Path: "apps/x.yaml", Content: ptr.To("x"), CommitMessage: tc.args.template})
			got, err := Message(f, tc.args.action)
			if diff := cmp.Diff(tc.want, outcomeOf(got, err)); diff != "" {
				t.Errorf("%s\nMessage(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMessageCap(t *testing.T) {
	// Exactly at the cap is fine; one byte over is not.
	at := newFile(v1alpha1.FileParameters{Path: "p", CommitMessage: strings.Repeat("a", message.MaxBytes)})
	if _, err := Message(at, ActionCreate); err != nil {
		t.Errorf("a message of exactly %d bytes must render: %v", message.MaxBytes, err)
	}
	over := newFile(v1alpha1.FileParameters{Path: "p", CommitMessage: strings.Repeat("a", message.MaxBytes) + "{{.Path}}"})
	if _, err := Message(over, ActionCreate); err == nil {
		t.Errorf("a message of %d bytes must be refused", message.MaxBytes+1)
	}
}

func TestDesired(t *testing.T) {
	type want struct {
		file   git.File
		failed bool
		reason xpv2.ConditionReason
	}
	raw := func(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }
	cases := map[string]struct {
		reason string
		params v1alpha1.FileParameters
		want   want
	}{
		"Content": {
			reason: "Content is written byte for byte, as a regular file by default.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "a/b.txt", Content: ptr.To("hello\n")},
			want:   want{file: git.File{Content: []byte("hello\n")}},
		},
		"Executable": {
			reason: "Mode Executable sets the executable bit.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "run.sh", Content: ptr.To("#!/bin/sh\n"), Mode: v1alpha1.FileModeExecutable},
			want:   want{file: git.File{Content: []byte("#!/bin/sh\n"), Executable: true}},
		},
		"Object": {
			reason: "An object is written as stable YAML with sorted keys, without status and server-set metadata.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "cm.yaml", Object: raw(
				`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","uid":"u","resourceVersion":"1"},"data":{"b":"2","a":"1"},"status":{}}`)},
			want: want{file: git.File{Content: []byte("apiVersion: v1\ndata:\n  a: \"1\"\n  b: \"2\"\nkind: ConfigMap\nmetadata:\n  name: x\n")}},
		},
		"Secret": {
			reason: "A Secret object is refused: its data would be in Git in clear text.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "s.yaml", Object: raw(`{"apiVersion":"v1","kind":"Secret","data":{"k":"dg=="}}`)},
			want:   want{failed: true, reason: spec.ReasonSecretRefused},
		},
		"ObjectOverTheCap": {
			reason: "An object whose YAML is over the content cap (a huge label map) is refused as content is.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "big.yaml", Object: raw(
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"` + strings.Repeat("x", validate.MaxContentBytes) + `"}}`)},
			want: want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"ObjectWithoutKind": {
			reason: "An object without apiVersion and kind is not a Kubernetes object.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "o.yaml", Object: raw(`{"data":{}}`)},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"Neither": {
			reason: "A File needs content or an object (a spec stored before the CRD's rule).",
			params: v1alpha1.FileParameters{Branch: "main", Path: "x"},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"Both": {
			reason: "A File may not have both content and an object.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "x", Content: ptr.To("a"), Object: raw(`{"apiVersion":"v1","kind":"ConfigMap"}`)},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"PathEscapes": {
			reason: "A path with '..' is refused in code too, not only by the CRD.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "../etc/passwd", Content: ptr.To("x")},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"PathInGit": {
			reason: "A path inside .git is refused.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "a/.git/config", Content: ptr.To("x")},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"BadBranch": {
			reason: "A branch name git would refuse is refused.",
			params: v1alpha1.FileParameters{Branch: "a..b", Path: "x", Content: ptr.To("x")},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
		"ContentNotText": {
			reason: "Content that is not UTF-8 was mangled on its way in.",
			params: v1alpha1.FileParameters{Branch: "main", Path: "x", Content: ptr.To("\xff\xfe")},
			want:   want{failed: true, reason: spec.ReasonInvalidSpec},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Desired(newFile(tc.params))
			r, _ := managed.StalledReason(err)
			if diff := cmp.Diff(tc.want, want{file: got, failed: err != nil, reason: r}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nDesired(...): -want, +got:\n%s", tc.reason, diff)
			}
			if _, stalled := managed.StalledReason(err); err != nil && !stalled {
				t.Errorf("%s\nDesired(...): a spec error must be marked Stalled, got %v", tc.reason, err)
			}
		})
	}
}
