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
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/share"
)

// shareOptions are the flags of a replica that shares the repositories.
type shareOptions struct {
	namespace, name string
	// selector is the canonical form of the objects watched.
	selector string
	lease    time.Duration
	// address is where the others forward forge deliveries to this
	// replica, "" for nowhere (forwardAddress).
	address string
}

// joinShare makes this replica a member of the replicas that share the
// repositories and watch the objects o.selector selects, and adds its
// Lease loop to mgr.
func joinShare(mgr ctrl.Manager, o shareOptions, log logging.Logger) (*share.Membership, error) {
	cs, err := coordinationv1client.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, errors.Wrap(err, "cannot create the Lease client")
	}
	sm := share.NewMetrics()
	if err := sm.Register(metrics.Registry); err != nil {
		return nil, errors.Wrap(err, "cannot register the share metrics")
	}
	keys := share.NewKeys(mgr.GetClient())
	m, err := share.New(cs.Leases(o.namespace), share.Options{
		Namespace: o.namespace, Identity: o.name, Group: share.GroupFor(o.selector), LeaseDuration: o.lease,
		Log: log.WithValues("component", "share"), Metrics: sm, Repositories: keys.InUse, Address: o.address,
	})
	if err != nil {
		return nil, errors.Wrap(err, "--share-repositories")
	}
	if err := mgr.Add(m); err != nil {
		return nil, errors.Wrap(err, "cannot add the membership to the manager")
	}
	return m, nil
}

// forwardAddress is where the other replicas forward forge deliveries to
// this one: the pod's IP and the port of --events-bind-address, when it
// shares the repositories and serves events; "" otherwise.
func forwardAddress(podIP, eventsAddr string, shareRepos bool) (string, error) {
	if !shareRepos || eventsAddr == "" || podIP == "" {
		return "", nil
	}
	ip, err := netip.ParseAddr(podIP)
	if err != nil {
		return "", errors.Errorf("--pod-ip %q is not an IP", podIP)
	}
	_, port, err := net.SplitHostPort(eventsAddr)
	if err != nil || port == "" || port == "0" {
		return "", errors.Errorf("--events-bind-address %q names no port the other replicas could forward to", eventsAddr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// hostname is the default replica name outside a pod.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "provider-git"
	}
	return h
}
