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
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const reloadFlag = "--audit-webhook-reload-interval"

// TestCheckReloadInterval: an audit reload interval below a second is
// refused, with the flag's name and its bound in the error.
func TestCheckReloadInterval(t *testing.T) {
	type want struct {
		Refused bool
		Message string
	}
	cases := map[string]struct {
		reason string
		d      time.Duration
		want   want
	}{
		"Zero": {
			reason: "0 would be a Secret Get on every request.",
			d:      0,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not 0s"},
		},
		"Negative": {
			reason: "A negative interval is refused like 0.",
			d:      -time.Second,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not -1s"},
		},
		"BelowASecond": {
			reason: "999ms is below the bound.",
			d:      999 * time.Millisecond,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not 999ms"},
		},
		"ASecond": {
			reason: "The bound itself is taken.",
			d:      time.Second,
			want:   want{},
		},
		"Default": {
			reason: "The default is taken.",
			d:      10 * time.Second,
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkReloadInterval(tc.d)
			got := want{Refused: err != nil}
			if err != nil {
				got.Message = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRunRefusesShortReloadInterval: run refuses the flag at start,
// before it reaches for an API server.
func TestRunRefusesShortReloadInterval(t *testing.T) {
	// No API server config: were the flag let through, run would fail on
	// that instead.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := run(ctx, []string{"--cache-dir=" + filepath.Join(t.TempDir(), "cache"), reloadFlag + "=0"})
	if err == nil || !strings.Contains(err.Error(), reloadFlag+" must be at least 1s") {
		t.Fatalf("run with %s=0: got %v, want it refused", reloadFlag, err)
	}
}

// TestCheckEventsURL: an --events-url a forge could not be given, or one
// that would send deliveries in clear text unasked, is refused at start.
func TestCheckEventsURL(t *testing.T) {
	type args struct {
		raw, addr     string
		allowInsecure bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   string
	}{
		"Unset":    {reason: "No URL registers nothing.", args: args{}, want: ""},
		"HTTPS":    {reason: "An https URL with a path is taken.", args: args{raw: "https://hooks.example.com/git", addr: ":8090"}, want: ""},
		"NoServer": {reason: "Without an events endpoint nothing would receive the deliveries.", args: args{raw: "https://hooks.example.com"}, want: "--events-url needs --events-bind-address: nothing would receive the deliveries"},
		"Relative": {reason: "A forge needs an absolute URL.", args: args{raw: "/hooks", addr: ":8090"}, want: `--events-url "/hooks" must be an absolute http(s) URL without credentials, query or fragment`},
		"Credentials": {reason: "Credentials in the URL would be handed to the forge.", args: args{raw: "https://u:p@hooks.example.com", addr: ":8090"},
			want: `--events-url "https://u:p@hooks.example.com" must be an absolute http(s) URL without credentials, query or fragment`},
		"Query": {reason: "The configuration's path is appended: a query would end up before it.", args: args{raw: "https://hooks.example.com?a=b", addr: ":8090"},
			want: `--events-url "https://hooks.example.com?a=b" must be an absolute http(s) URL without credentials, query or fragment`},
		"OtherScheme": {reason: "Forges deliver over http(s) only.", args: args{raw: "ftp://hooks.example.com", addr: ":8090"},
			want: `--events-url "ftp://hooks.example.com" must be an absolute http(s) URL without credentials, query or fragment`},
		"PlainHTTP": {reason: "Deliveries in clear text need the insecure flag.", args: args{raw: "http://hooks.example.com", addr: ":8090"},
			want: `--events-url "http://hooks.example.com" is http://: refused unless the provider runs with --allow-insecure-remotes`},
		"PlainHTTPAllowed": {reason: "Tests and the local default may.", args: args{raw: "http://127.0.0.1:8090", addr: ":8090", allowInsecure: true}, want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := checkEventsURL(tc.args.raw, tc.args.addr, tc.args.allowInsecure); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestForwardAddress: a replica that shares the repositories and serves
// events publishes its pod's IP and the events port; nothing without one
// of them; a pod IP that is no IP, or an events address without a port the
// others could reach, is refused at start.
func TestForwardAddress(t *testing.T) {
	type args struct {
		podIP, eventsAddr string
		share             bool
	}
	type want struct {
		addr string
		err  string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Shared":      {reason: "The pod's IP and the port events are served on.", args: args{podIP: "10.0.3.7", eventsAddr: ":8090", share: true}, want: want{addr: "10.0.3.7:8090"}},
		"IPv6":        {reason: "An IPv6 pod IP is bracketed.", args: args{podIP: "fd00::7", eventsAddr: "0.0.0.0:8090", share: true}, want: want{addr: "[fd00::7]:8090"}},
		"NotShared":   {reason: "A replica that shares nothing forwards nothing and is forwarded nothing.", args: args{podIP: "10.0.3.7", eventsAddr: ":8090"}},
		"NoEvents":    {reason: "No events served, nothing to forward to.", args: args{podIP: "10.0.3.7", share: true}},
		"NoPodIP":     {reason: "Without the pod's IP, the replica publishes nothing.", args: args{eventsAddr: ":8090", share: true}},
		"NotAnIP":     {reason: "A host name would be resolved by every other replica: refused.", args: args{podIP: "provider-0", eventsAddr: ":8090", share: true}, want: want{err: `--pod-ip "provider-0" is not an IP`}},
		"PortChosen":  {reason: "Port 0 is the kernel's pick, which the others cannot know.", args: args{podIP: "10.0.3.7", eventsAddr: ":0", share: true}, want: want{err: `--events-bind-address ":0" names no port the other replicas could forward to`}},
		"PortMissing": {reason: "An address without a port is refused.", args: args{podIP: "10.0.3.7", eventsAddr: "10.0.3.7", share: true}, want: want{err: `--events-bind-address "10.0.3.7" names no port the other replicas could forward to`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := want{}
			addr, err := forwardAddress(tc.args.podIP, tc.args.eventsAddr, tc.args.share)
			got.addr = addr
			if err != nil {
				got.err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCloneMemoryFlag: --clone-memory takes a size with a unit, and run
// refuses 0, a negative size or no size at all before it reaches for an
// API server.
func TestCloneMemoryFlag(t *testing.T) {
	// No API server config: a flag let through fails on that instead.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	const noServer = "cannot get a Kubernetes API server config"
	cases := map[string]struct {
		reason string
		value  string
		want   string
	}{
		"Default": {reason: "The default is taken.", value: "", want: noServer},
		"MiB":     {reason: "A size in MiB is taken.", value: "128MiB", want: noServer},
		"GiB":     {reason: "A size in GiB is taken.", value: "1GiB", want: noServer},
		"Zero":    {reason: "0 would leave every read to decode its trees again.", value: "0", want: `--clone-memory must be above 0 (a size such as 64MiB), not "0"`},
		"Negative": {reason: "A negative size is refused like 0.", value: "-1MiB",
			want: `--clone-memory must be above 0 (a size such as 64MiB), not "-1MiB"`},
		"NoSize": {reason: "A word that is no size is refused, naming the flag.", value: "lots", want: `--clone-memory "lots" is not a size such as 64MiB or 1GiB`},
		"SI":     {reason: "kB (1,000 bytes) is refused: the unit is base 2.", value: "64kB", want: `--clone-memory "64kB" is not a size such as 64MiB or 1GiB`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := []string{"--cache-dir=" + filepath.Join(t.TempDir(), "cache")}
			if tc.value != "" {
				args = append(args, "--clone-memory="+tc.value)
			}
			err := run(ctx, args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nrun with --clone-memory=%q: got %v, want an error containing %q", tc.reason, tc.value, err, tc.want)
			}
		})
	}
}
