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

package crash_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// statusFault is what apiFaults does to a File's first status write.
type statusFault int

const (
	// conflictFirst answers it 409 Conflict without forwarding it, as an
	// API server does when another writer got there first.
	conflictFirst statusFault = iota
	// dropFirst fails it before it reaches the API server.
	dropFirst
	// loseFirstReply forwards it, then fails it: the write is stored, the
	// provider never hears so.
	loseFirstReply
)

func (f statusFault) String() string {
	return [...]string{"apiserver-conflict", "apiserver-status-write-dropped", "apiserver-status-reply-lost"}[f]
}

// apiFaults injects one fault into the first status write of each File
// whose name has a fault's prefix, and counts them.
type apiFaults struct {
	next http.RoundTripper
	ns   string

	mu       sync.Mutex
	seen     map[string]bool
	injected map[statusFault]int
}

func (a *apiFaults) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet || !strings.HasSuffix(r.URL.Path, "/status") || !strings.Contains(r.URL.Path, "/namespaces/"+a.ns+"/files/") {
		return a.next.RoundTrip(r)
	}
	name := path.Base(path.Dir(r.URL.Path))
	fault, ok := faultOf(name)
	a.mu.Lock()
	first := ok && !a.seen[name]
	if first {
		a.seen[name] = true
		a.injected[fault]++
	}
	a.mu.Unlock()
	if !first {
		return a.next.RoundTrip(r)
	}
	switch fault {
	case conflictFirst:
		st := metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusFailure, Reason: metav1.StatusReasonConflict, Code: http.StatusConflict,
			Message: "Operation cannot be fulfilled on files.git.m.crossplane.io \"" + name + "\": the object has been modified",
		}
		b, _ := json.Marshal(st)
		return &http.Response{
			StatusCode: http.StatusConflict, Status: "409 Conflict", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b)),
			ContentLength: int64(len(b)), Request: r,
		}, nil
	case dropFirst:
		return nil, errors.New("connection reset by peer (injected before the API server)")
	default:
		resp, err := a.next.RoundTrip(r)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return nil, errors.New("connection reset by peer (injected after the API server stored the write)")
	}
}

// faultOf reads the fault a File's name asks for.
func faultOf(name string) (statusFault, bool) {
	for _, f := range []statusFault{conflictFirst, dropFirst, loseFirstReply} {
		if strings.HasPrefix(name, f.String()+"-") {
			return f, true
		}
	}
	return 0, false
}

// watchLost is the key under which readyTransitions records a watch it
// could not resume.
const watchLost = "(watch lost)"

// readyTransitions watches the Files of a namespace and records, per File,
// every Ready (status, reason) the API server stored, one entry per change.
func readyTransitions(t *testing.T, ns string) (func() map[string][]string, func()) {
	t.Helper()
	wc, err := client.NewWithWatch(e2e.CP.Config, client.Options{Scheme: e2e.CP.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	// A watch the API server ends (it closes one whose reader fell behind,
	// as a loaded test process may) is resumed from the last version it
	// delivered, so no stored transition is missed: a plain watch lost
	// them once in make test, and the Events looked duplicated.
	l := &v1alpha1.FileList{}
	if err := wc.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(context.Background(), l.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return wc.Watch(ctx, &v1alpha1.FileList{}, client.InNamespace(ns), &client.ListOptions{Raw: &o})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				// Resuming failed (the version is gone): what follows is
				// unknown, and the comparison must not pass on it.
				mu.Lock()
				seen[watchLost] = append(seen[watchLost], fmt.Sprint(ev.Object))
				mu.Unlock()
				continue
			}
			fl, ok := ev.Object.(*v1alpha1.File)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			c := fl.GetCondition(xpv2.TypeReady)
			if c.LastTransitionTime.IsZero() {
				continue // no Ready yet: GetCondition made one up
			}
			v := string(c.Status) + "/" + string(c.Reason)
			mu.Lock()
			if s := seen[fl.Name]; len(s) == 0 || s[len(s)-1] != v {
				seen[fl.Name] = append(s, v)
			}
			mu.Unlock()
		}
	}()
	stop := func() { w.Stop(); <-done }
	t.Cleanup(stop)
	return func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[string][]string, len(seen))
		for k, v := range seen {
			out[k] = slices.Clone(v)
		}
		return out
	}, stop
}

// readyEvents returns, per File of ns, the reasons of the Events it got
// for Ready transitions (every Event but the lifecycle ones), sorted.
func readyEvents(t *testing.T, ns string) map[string][]string {
	t.Helper()
	l := &corev1.EventList{}
	if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	lifecycle := map[string]bool{
		"CreatedExternalResource": true, "UpdatedExternalResource": true, "DeletedExternalResource": true,
		"CannotCreateExternalResource": true, "CannotUpdateExternalResource": true, "CannotDeleteExternalResource": true,
		"ReconcileRequestHandled": true,
	}
	out := map[string][]string{}
	for _, e := range l.Items {
		if e.InvolvedObject.Kind != v1alpha1.FileKind || lifecycle[e.Reason] {
			continue
		}
		for range max(e.Count, 1) {
			out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], e.Reason)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// TestFaultAPIServerConflictsAndLostStatusWrites: the first status write of
// each File fails: answered with a Conflict, dropped before the API server,
// or stored with its reply lost. Every File converges, and each Ready
// transition the API server stored is announced by exactly one Event.
func TestFaultAPIServerConflictsAndLostStatusWrites(t *testing.T) {
	const perFault = 10
	f := e2e.NewFixture(t)
	faults := &apiFaults{ns: f.Namespace, seen: map[string]bool{}, injected: map[statusFault]int{}}
	e2e.StartProvider(t, "", e2e.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		faults.next = rt
		return faults
	}))
	transitions, stopWatch := readyTransitions(t, f.Namespace)
	var files []*v1alpha1.File
	start := time.Now()
	for _, fault := range []statusFault{conflictFirst, dropFirst, loseFirstReply} {
		for i := range perFault {
			name := fmt.Sprintf("%s-%02d", fault, i)
			fl := e2e.NewFile(f, name, "apps/"+name+".yaml", name+"\n")
			e2e.Create(t, fl)
			files = append(files, fl)
		}
	}
	for _, fl := range files {
		e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
	}
	converge := time.Since(start)
	e2e.WritesLanded(t)
	counts := f.CommitCounts(t, "main")
	want := map[string][]string{}
	testenv.Eventually(t, 30*time.Second, func() error {
		tr := transitions()
		if lost := tr[watchLost]; len(lost) > 0 {
			t.Fatalf("the watch of the stored transitions could not be resumed: %v", lost)
		}
		for _, fl := range files {
			reasons := []string{}
			for _, v := range tr[fl.Name] {
				reasons = append(reasons, v[strings.Index(v, "/")+1:])
			}
			slices.Sort(reasons)
			want[fl.Name] = reasons
		}
		if diff := cmp.Diff(want, readyEvents(t, f.Namespace)); diff != "" {
			return fmt.Errorf("Events per File do not match the stored Ready transitions %v: -transitions, +events:\n%s", tr[files[0].Name], diff)
		}
		return nil
	})
	stopWatch()
	lost, dup := 0, 0
	for _, fl := range files {
		switch got := counts[string(fl.UID)]; {
		case got == 0:
			lost++
		case got > 1:
			dup++
		}
	}
	for _, fault := range []statusFault{conflictFirst, dropFirst, loseFirstReply} {
		faults.mu.Lock()
		n := faults.injected[fault]
		faults.mu.Unlock()
		if n != perFault {
			t.Errorf("%s injected %d times, want once per File (%d)", fault, n, perFault)
		}
		e2e.Figure(t, fault.String(), int64(n), converge, lost, dup, "")
	}
}
