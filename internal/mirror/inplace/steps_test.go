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

package inplace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// step is a Step as the tests compare it.
type step struct {
	Object  string
	Verb    string
	Puts    map[string]string
	Deletes []string
}

func stepsOf(p Plan) []step {
	var out []step
	for _, s := range p.Steps {
		st := step{Object: s.Object.String(), Verb: s.Verb, Deletes: s.Deletes}
		if s.Puts != nil {
			st.Puts = map[string]string{}
			for f, b := range s.Puts {
				st.Puts[f] = string(b)
			}
		}
		out = append(out, st)
	}
	return out
}

// TestPlanInPlaceSteps: a plan made step by step records one step per
// object it changes, in the order the objects were given, removals last,
// each with its files as they stand once it and the steps before it are
// made; the last step to write a file writes the plan's content. Two
// objects of one file are two steps, the second holding both edits; an
// overlay's edit is its kustomization's.
func TestPlanInPlaceSteps(t *testing.T) {
	raw, _ := repo(t, "multidoc")
	shop, tools := "apps/shop.yaml", "apps/tools.yaml"
	scaled := strings.Replace(raw[shop], "replicas: 2 #", "replicas: 5 #", 1)
	both := strings.Replace(scaled, "  mode: \"production\"", "  mode: \"sale\"", 1)
	cases := map[string]struct {
		reason string
		steps  bool
		hold   map[string]bool
		want   []step
	}{
		"StepByStep": {
			reason: "Each change is a step with its files as they stand after it: the Deployment's file, then the same file with the ConfigMap's edit too, then the removal of the robot's document.",
			steps:  true,
			want: []step{
				{Object: shop + ": apps/Deployment shop/web", Verb: StepEdited, Puts: map[string]string{shop: scaled}},
				{Object: shop + ": core/ConfigMap shop/web-config", Verb: StepEdited, Puts: map[string]string{shop: both}},
				{Object: tools + ": core/ServiceAccount shop/robot", Verb: StepRemoved, Puts: map[string]string{tools: docOf(t, raw, tools, 0)}},
			},
		},
		"Listed": {
			reason: "Without Steps the changes are listed, without their files.",
			want: []step{
				{Object: shop + ": apps/Deployment shop/web", Verb: StepEdited},
				{Object: shop + ": core/ConfigMap shop/web-config", Verb: StepEdited},
				{Object: tools + ": core/ServiceAccount shop/robot", Verb: StepRemoved},
			},
		},
		"Held": {
			reason: "A held object's document stays as Git has it, and so does a held removal: no step for either.",
			steps:  true,
			hold:   map[string]bool{"shop/core/configmap/web-config.yaml": true, "shop/core/serviceaccount/robot.yaml": true},
			want:   []step{{Object: shop + ": apps/Deployment shop/web", Verb: StepEdited, Puts: map[string]string{shop: scaled}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, x := repo(t, "multidoc")
			edits := map[string]func(*unstructured.Unstructured){
				"deployment": func(u *unstructured.Unstructured) {
					_ = unstructured.SetNestedField(u.Object, int64(5), "spec", "replicas")
				},
				"config": func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "sale", "data", "mode") },
			}
			// In commit order: the Deployment's change first.
			objs := []mirror.Object{
				live(t, docOf(t, raw, shop, 1), "", edits["deployment"]), live(t, docOf(t, raw, shop, 0), "", edits["config"]),
				live(t, docOf(t, raw, shop, 2), "", nil), live(t, docOf(t, raw, tools, 0), "", nil),
			}
			owned := []DocRef{{File: tools, Kind: "ServiceAccount", Namespace: "shop", Name: "robot"}}
			p, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true, Steps: tc.steps, Hold: tc.hold}, objs, owned)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, stepsOf(p)); diff != "" {
				t.Errorf("\n%s\nsteps: -want, +got:\n%s", tc.reason, diff)
			}
			if !tc.steps {
				return
			}
			// The steps made in order are the plan.
			made := map[string]string{}
			for _, s := range p.Steps {
				for f, b := range s.Puts {
					made[f] = string(b)
				}
			}
			want := map[string]string{}
			for f, b := range p.Puts {
				want[f] = string(b)
			}
			if diff := cmp.Diff(want, made); diff != "" {
				t.Errorf("\n%s\nthe steps made in order against the plan's Puts: -plan, +steps:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPlanInPlaceStepsOverlay: an overlay's edit and a new object of a
// kustomization are steps whose files are the layout's edits, each
// checked by kustomize.
func TestPlanInPlaceStepsOverlay(t *testing.T) {
	raw, x := repo(t, "overlays")
	const stgK = "staging/kustomization.yaml"
	bumped := strings.Replace(raw[stgK], "1.5.0-rc.1", "1.5.0", 1)
	objs := overlaysLive(t, x, map[string]func(*unstructured.Unstructured){"apps/Deployment shop-staging/web": func(u *unstructured.Unstructured) {
		cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		cs[0].(map[string]any)["image"] = "ghcr.io/example/web:1.5.0"
		_ = unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers")
	}})
	objs = append(objs, live(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop-staging\ndata:\n  k: v\n", "", nil))
	p, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true, Steps: true}, objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var edited []step
	for _, s := range stepsOf(p) {
		edited = append(edited, step{Object: s.Object, Verb: s.Verb, Puts: s.Puts})
	}
	want := []step{
		{Object: "base/deployment.yaml: " + yamledit.ID{Group: "apps", Kind: "Deployment", Namespace: "shop-staging", Name: "web"}.String(), Verb: StepEdited, Puts: map[string]string{stgK: bumped}},
		{Object: "staging/configmap-extra.yaml: core/ConfigMap shop-staging/extra", Verb: StepAdded, Puts: map[string]string{
			stgK:                           strings.Replace(bumped, "- ../base\n", "- ../base\n- configmap-extra.yaml\n", 1),
			"staging/configmap-extra.yaml": "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop-staging\n",
		}},
	}
	if diff := cmp.Diff(want, edited); diff != "" {
		t.Errorf("steps: -want, +got:\n%s", diff)
	}
}
