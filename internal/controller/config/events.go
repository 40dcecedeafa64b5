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

package config

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// hook receives pc's forge events at the path its webhook secret derives,
// and publishes that path; a configuration without a webhook secret, or a
// provider serving no events, receives none and publishes nothing.
func (r *Reconciler) hook(pc configObject, conn *Connection) {
	nn := types.NamespacedName{Namespace: pc.GetNamespace(), Name: pc.GetName()}
	repo, err := git.RepositoryKey(conn.Remote.URL)
	if r.hooks == nil || len(conn.WebhookSecret) == 0 || err != nil {
		r.unhook(nn)
		setEvents(pc, nil)
		return
	}
	setEvents(pc, &v1alpha1.EventsStatus{Path: r.hooks.Set(r.owner(nn), repo, conn.WebhookSecret)})
}

// unhook stops receiving the events of the configuration nn names.
func (r *Reconciler) unhook(nn types.NamespacedName) {
	if r.hooks != nil {
		r.hooks.Remove(r.owner(nn))
	}
}

// setEvents publishes where pc receives events.
func setEvents(pc configObject, ev *v1alpha1.EventsStatus) {
	switch c := pc.(type) {
	case *v1alpha1.ProviderConfig:
		c.Status.Events = ev
	case *v1alpha1.ClusterProviderConfig:
		c.Status.Events = ev
	}
}
