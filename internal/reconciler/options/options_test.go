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

package options

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

var errBoom = errors.New("boom")

func TestExternalNameFrom(t *testing.T) {
	type args struct {
		kube client.Client
		name string // the external name already set
		want string // what the resource asks to be named
	}
	type want struct {
		err  error
		name string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Named": {
			reason: "The external name is set to what the resource names in Git and persisted.",
			args:   args{kube: &test.MockClient{MockUpdate: test.NewMockUpdateFn(nil)}, name: "obj", want: "feature/x"},
			want:   want{name: "feature/x"},
		},
		"AlreadyNamed": {
			reason: "An external name that is already right costs no write (the client fails any).",
			args:   args{kube: &test.MockClient{}, name: "feature/x", want: "feature/x"},
			want:   want{name: "feature/x"},
		},
		"NothingToNameAfter": {
			reason: "An empty name (a spec the CRD should have refused) leaves the external name alone.",
			args:   args{kube: &test.MockClient{}, name: "obj"},
			want:   want{name: "obj"},
		},
		"UpdateFailed": {
			reason: "A failed write is reported with what was attempted.",
			args:   args{kube: &test.MockClient{MockUpdate: test.NewMockUpdateFn(errBoom)}, name: "obj", want: "feature/x"},
			want:   want{err: errors.Wrap(errBoom, errSetName), name: "feature/x"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "obj"}}
			meta.SetExternalName(b, tc.args.name)
			fn := ExternalNameFrom(tc.args.kube, func(resource.Managed) string { return tc.args.want })
			err := fn.Initialize(context.Background(), b)
			if diff := cmp.Diff(tc.want, want{err: err, name: meta.GetExternalName(b)}, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nInitialize(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// manager is the little of a controller manager SetupGated uses.
type manager struct {
	ctrl.Manager
	log logr.Logger
}

func (m manager) GetLogger() logr.Logger { return m.log }

func TestSetupGated(t *testing.T) {
	gvks := []schema.GroupVersionKind{v1alpha1.BranchGroupVersionKind, v1alpha1.FileGroupVersionKind}
	cases := map[string]struct {
		reason string
		err    error // returned by setup
		logged bool
	}{
		"SetUp": {
			reason: "Once every CRD is established, setup runs with the manager and the options given.",
		},
		"SetupFailed": {
			reason: "A setup that fails after start-up has nobody to return to: it is logged.",
			err:    errBoom,
			logged: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			logged := make(chan string, 1)
			mgr := manager{log: funcr.New(func(_, args string) { logged <- args }, funcr.Options{})}
			o := Options{Options: controller.Options{PollInterval: time.Minute, Gate: new(gate.Gate[schema.GroupVersionKind])}}
			called := make(chan Options, 1)
			setup := func(m ctrl.Manager, got Options) error {
				if m != ctrl.Manager(mgr) {
					t.Errorf("%s\nsetup got another manager", tc.reason)
				}
				called <- got
				return tc.err
			}
			if err := o.SetupGated(mgr, setup, gvks...); err != nil {
				t.Fatalf("%s\nSetupGated(...): %v", tc.reason, err)
			}
			for _, gvk := range gvks {
				o.Gate.Set(gvk, true)
			}
			select {
			case got := <-called:
				if diff := cmp.Diff(o.PollInterval, got.PollInterval); diff != "" {
					t.Errorf("%s\nsetup's options: -want, +got:\n%s", tc.reason, diff)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s\nsetup never ran once every CRD was established", tc.reason)
			}
			if !tc.logged {
				return
			}
			select {
			case msg := <-logged:
				if !strings.Contains(msg, errBoom.Error()) {
					t.Errorf("%s\nlogged %q, want the error", tc.reason, msg)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s\na failed setup was not logged", tc.reason)
			}
		})
	}
}
