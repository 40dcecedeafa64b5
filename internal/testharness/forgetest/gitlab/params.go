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

package gitlab

import (
	"encoding/json"
	"net/http"
	"strings"
)

// body is the request's parameters, or false once it answered Grape's 400
// to a body it cannot read.
func body(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	p, err := params(r)
	if err != nil {
		reply(w, http.StatusBadRequest, map[string]any{"error": "400 Bad request - " + err.Error()})
		return nil, false
	}
	return p, true
}

// params is a request's JSON body, or its form when not JSON.
func params(r *http.Request) (map[string]json.RawMessage, error) {
	p := map[string]json.RawMessage{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		err := json.NewDecoder(r.Body).Decode(&p)
		return p, err
	}
	if err := r.ParseForm(); err != nil {
		return nil, err
	}
	for k, v := range r.Form {
		b, _ := json.Marshal(strings.Join(v, ","))
		p[k] = b
	}
	return p, nil
}

func str(p map[string]json.RawMessage, k string) (string, bool) {
	raw, ok := p[k]
	if !ok {
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		var l []string
		_ = json.Unmarshal(raw, &l)
		v = strings.Join(l, ",")
	}
	return v, true
}

func boolean(p map[string]json.RawMessage, k string) bool {
	var b bool
	if json.Unmarshal(p[k], &b) == nil {
		return b
	}
	s, _ := str(p, k)
	return s == "true"
}

// labels is the labels parameter: a comma-separated string or an array.
func labels(p map[string]json.RawMessage) ([]string, bool) {
	v, ok := str(p, "labels")
	if !ok {
		return nil, false
	}
	var out []string
	for _, l := range strings.Split(v, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, true
}

// names turns a user id array parameter into user names, dropping unknown
// ids as GitLab does. Callers hold mu.
func (s *Server) names(p map[string]json.RawMessage, k string) ([]string, bool) {
	raw, ok := p[k]
	if !ok {
		return nil, false
	}
	var ids []int64
	_ = json.Unmarshal(raw, &ids)
	var out []string
	for _, id := range ids {
		if n, ok := s.logins[id]; ok {
			out = append(out, n)
		}
	}
	return out, true
}
