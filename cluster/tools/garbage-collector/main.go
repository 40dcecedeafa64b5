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

// Command garbage-collector runs Kubernetes' garbage collector, and nothing
// else, against the cluster its kubeconfig names. The end-to-end tests
// (internal/testharness/crossplanetest) delete a composite resource and rely on
// Kubernetes, not Crossplane, to delete what it composed (owner references);
// envtest runs no controller manager. Building all of kube-controller-manager
// for that compiled hundreds of packages that nothing else in a test run
// needs, so this wires up the same garbage collector the way
// kube-controller-manager does (cmd/kube-controller-manager/app: the
// controller context, and newGarbageCollectorController with its Run):
// the same clients, REST mapper, informers, ignored resources, workers and
// 30s discovery sync.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
)

const (
	// userAgent names this program in the API server's logs and audit.
	userAgent = "garbage-collector"
	// qps and burst are kube-controller-manager's --kube-api-qps and
	// --kube-api-burst defaults; the GC doubles qps for its metadata client
	// because each deletion takes two requests.
	qps, burst = 20, 30
	// minResync is kube-controller-manager's --min-resync-period default.
	minResync = 12 * time.Hour
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "Path to the kubeconfig of the cluster to collect garbage in.")
	workers := flag.Int("concurrent-gc-syncs", 20, "Objects garbage collected at once (kube-controller-manager's default).")
	syncPeriod := flag.Duration("sync-period", 30*time.Second,
		"How often discovery is read again for new resources (such as a new CRD's) to watch; kube-controller-manager's is 30s.")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, *kubeconfig, *workers, *syncPeriod)
	stop()
	if err != nil {
		klog.ErrorS(err, "garbage collector failed")
		klog.Flush()
		os.Exit(1)
	}
}

// run starts the garbage collector and returns once ctx is done.
func run(ctx context.Context, kubeconfig string, workers int, syncPeriod time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = qps, burst
	cfg.UserAgent = userAgent
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	informerMetadata, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	gcCfg := *cfg
	gcCfg.QPS *= 2
	gcMetadata, err := metadata.NewForConfig(&gcCfg)
	if err != nil {
		return err
	}

	// The informers drop managed fields, as kube-controller-manager's do: the
	// GC reads owner references only.
	trim := func(obj any) (any, error) {
		if a, err := meta.Accessor(obj); err == nil && a.GetManagedFields() != nil {
			a.SetManagedFields(nil)
		}
		return obj, nil
	}
	typed := informers.NewSharedInformerFactoryWithOptions(client, minResync, informers.WithTransform(trim))
	metadataOnly := metadatainformer.NewSharedInformerFactoryWithOptions(informerMetadata, minResync, metadatainformer.WithTransform(trim))
	factory := informerfactory.NewInformerFactory(typed, metadataOnly)

	// kube-controller-manager resets its mapper every 30s besides the GC's
	// own resets when discovery changes; here that follows --sync-period.
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discoveryClient))
	go wait.Until(mapper.Reset, syncPeriod, ctx.Done())

	informersStarted := make(chan struct{})
	gc, err := garbagecollector.NewGarbageCollector(ctx, client, gcMetadata, mapper,
		garbagecollector.DefaultIgnoredResources(), factory, informersStarted)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer metadataOnly.Shutdown()
	defer typed.Shutdown()
	close(informersStarted)

	var wg sync.WaitGroup
	wg.Go(func() { gc.Run(ctx, workers, syncPeriod) })
	wg.Go(func() { gc.Sync(ctx, discoveryClient, syncPeriod) })
	wg.Wait()
	return nil
}
