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

// Package config runs the controllers of ProviderConfig and
// ClusterProviderConfig: usage accounting, and a finalizer that blocks
// deleting a configuration that managed resources still use.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/options"
)

var (
	pcGVK       = v1alpha1.SchemeGroupVersion.WithKind("ProviderConfig")
	cpcGVK      = v1alpha1.SchemeGroupVersion.WithKind("ClusterProviderConfig")
	usageGVK    = v1alpha1.SchemeGroupVersion.WithKind("ProviderConfigUsage")
	usageLstGVK = v1alpha1.SchemeGroupVersion.WithKind("ProviderConfigUsageList")
)

// Setup adds the ProviderConfig and ClusterProviderConfig controllers.
func Setup(mgr ctrl.Manager, o options.Options) error {
	if err := setup(mgr, o, pcGVK, &v1alpha1.ProviderConfig{}); err != nil {
		return err
	}
	return setup(mgr, o, cpcGVK, &v1alpha1.ClusterProviderConfig{})
}

// SetupGated registers Setup to run once the CRDs it watches are established
// (safe start: Crossplane may install a provider's CRDs after the provider).
func SetupGated(mgr ctrl.Manager, o options.Options) error {
	o.Gate.Register(func() {
		if err := Setup(mgr, o); err != nil {
			mgr.GetLogger().Error(err, "cannot set up ProviderConfig controllers")
		}
	}, pcGVK, cpcGVK, usageGVK)
	return nil
}

func setup(mgr ctrl.Manager, o options.Options, gvk schema.GroupVersionKind, of resource.ProviderConfig) error {
	name := providerconfig.ControllerName(gvk.GroupKind().String())
	r := providerconfig.NewReconciler(mgr, resource.ProviderConfigKinds{Config: gvk, Usage: usageGVK, UsageList: usageLstGVK},
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))), //nolint:staticcheck // the events API recorder is not what crossplane-runtime's event package wraps yet.
	)
	return builder.ControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(of).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{Kind: gvk.Kind}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
