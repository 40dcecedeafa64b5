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

import "k8s.io/client-go/rest"

// Requests per second, and burst, of the API client per unit of
// --max-reconcile-rate.
const (
	qpsPerRate   = 25
	burstPerRate = 50
)

// LimitRESTConfig returns a copy of cfg whose client allows 25 requests per
// second per unit of rate (--max-reconcile-rate), with bursts of 50.
//
// crossplane-runtime's LimitRESTConfig allows 5 and 10, sized for
// reconciles the global limiter rations to rate per second. Ours are
// event-driven and not rationed (a new resource must not wait behind
// others), so the client's limit is what bounds a burst. A new File costs
// four requests of it (its ProviderConfigUsage, one metadata write, two
// status writes; Events go through a client of their own): at 5x rate the
// defaults took about 12 new Files a second, and 1,000 Files created at
// once trickled into the branch writer for over a minute, one commit window
// after another. At 25x the defaults take about 60 a second. The API
// server's own priority and fairness still protects it from any one client.
func LimitRESTConfig(cfg *rest.Config, rate int) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.QPS = float32(rate * qpsPerRate)
	out.Burst = rate * burstPerRate
	return out
}
