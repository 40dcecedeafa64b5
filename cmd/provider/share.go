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

package main

import (
	"os"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
)

// joinShare makes this replica a member of the replicas that share the
// repositories and watch the objects selector selects (its canonical
// form), and adds its Lease loop to mgr.
func joinShare(mgr ctrl.Manager, namespace, name, selector string, lease time.Duration, log logging.Logger) (*share.Membership, error) {
	cs, err := coordinationv1client.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, errors.Wrap(err, "cannot create the Lease client")
	}
	sm := share.NewMetrics()
	if err := sm.Register(metrics.Registry); err != nil {
		return nil, errors.Wrap(err, "cannot register the share metrics")
	}
	keys := share.NewKeys(mgr.GetClient())
	m, err := share.New(cs.Leases(namespace), share.Options{
		Namespace: namespace, Identity: name, Group: share.GroupFor(selector), LeaseDuration: lease,
		Log: log.WithValues("component", "share"), Metrics: sm, Repositories: keys.InUse,
	})
	if err != nil {
		return nil, errors.Wrap(err, "--share-repositories")
	}
	if err := mgr.Add(m); err != nil {
		return nil, errors.Wrap(err, "cannot add the membership to the manager")
	}
	return m, nil
}

// hostname is the default replica name outside a pod.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "provider-git"
	}
	return h
}
