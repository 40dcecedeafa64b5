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

package github

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Repository webhooks, as "REST API endpoints for repository webhooks"
// (docs.github.com/rest/repos/webhooks) documents them: list (paginated,
// per_page at most 100), create (201), get, update (PATCH) and delete
// (204) under /repos/{owner}/{repo}/hooks, with the hook's config.secret
// answered as "********" and never in clear.
const (
	docHooks      = "https://docs.github.com/rest/repos/webhooks"
	msgHookExists = "Hook already exists on this repository"
	msgHookNoURL  = "Config must contain URL for webhooks"
	msgHookType   = "Config content_type must be json or form"
	// maskedSecret is what GitHub answers for a hook's secret.
	maskedSecret = "********"
	// firstHookID is past 2^32, as GitHub's hook IDs run: a client that
	// keeps an ID in 32 bits gets another hook's.
	firstHookID = 1 << 32
)

// Hook is a repository webhook as the fake holds it, for tests.
type Hook struct {
	ID          int64
	URL         string
	ContentType string
	// Secret is the secret in clear, as the fake keeps it (GitHub never
	// answers it).
	Secret      string
	InsecureSSL string
	Events      []string
	Active      bool
}

// hookIn is the body of "Create a repository webhook" and "Update a
// repository webhook": nil is left as it is (on create, the default).
type hookIn struct {
	Config *struct {
		URL         string `json:"url"`
		ContentType string `json:"content_type"`
		Secret      string `json:"secret"`
		InsecureSSL any    `json:"insecure_ssl"` // "0" or "1", or a number
	} `json:"config"`
	Events       *[]string `json:"events"`
	AddEvents    []string  `json:"add_events"`
	RemoveEvents []string  `json:"remove_events"`
	Active       *bool     `json:"active"`
}

// SetHookAccess makes every hooks request answer status: 404 Not Found, as
// GitHub answers a token that may read the repository but not administer
// its hooks, or 403, as it answers an App without the webhooks permission;
// 0 allows them again.
func (s *Server) SetHookAccess(status int) { s.mu.Lock(); s.hookAccess = status; s.mu.Unlock() }

// AddHook adds a hook as a person or another integration would, and
// returns its ID.
func (s *Server) AddHook(owner, repo string, h Hook) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(owner, repo)
	h.ID = s.hookID()
	h.Events = slices.Clone(h.Events)
	rp.hooks = append(rp.hooks, &h)
	return h.ID
}

// Hooks returns owner/repo's hooks, oldest first.
func (s *Server) Hooks(owner, repo string) []Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := s.repo(owner, repo).hooks
	if len(hs) == 0 {
		return nil
	}
	out := make([]Hook, 0, len(hs))
	for _, h := range hs {
		c := *h
		c.Events = slices.Clone(h.Events)
		out = append(out, c)
	}
	return out
}

func (s *Server) hookID() int64 { s.hooksMade++; return firstHookID + s.hooksMade }

// hooksAPI routes /repos/{owner}/{repo}/hooks[/{id}].
func (s *Server) hooksAPI(w *buffered, r *http.Request, rp *repo, rest []string) {
	switch s.hookAccess {
	case http.StatusNotFound:
		w.json(http.StatusNotFound, errBody(msgNotFound, docHooks))
		return
	case http.StatusForbidden:
		w.json(http.StatusForbidden, errBody(msgForbidden, docHooks))
		return
	}
	if len(rest) == 0 {
		switch r.Method {
		case http.MethodGet:
			s.listHooks(w, r, rp)
		case http.MethodPost:
			s.createHook(w, r, rp)
		default:
			w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
		}
		return
	}
	id, err := strconv.ParseInt(rest[0], 10, 64)
	i := slices.IndexFunc(rp.hooks, func(h *Hook) bool { return h.ID == id })
	if err != nil || i < 0 || len(rest) > 1 {
		w.json(http.StatusNotFound, errBody(msgNotFound, docHooks))
		return
	}
	switch r.Method {
	case http.MethodGet:
		w.json(http.StatusOK, s.hookJSON(rp, rp.hooks[i]))
	case http.MethodPatch:
		s.editHook(w, r, rp, rp.hooks[i])
	case http.MethodDelete:
		rp.hooks = slices.Delete(rp.hooks, i, i+1)
		w.empty(http.StatusNoContent)
	default:
		w.json(http.StatusNotFound, errBody(msgNotFound, docRoot))
	}
}

// listHooks is "List repository webhooks": oldest first, per_page (default
// 30, at most 100) and page, with a Link header.
func (s *Server) listHooks(w *buffered, r *http.Request, rp *repo) {
	q := r.URL.Query()
	perPage, page := min(max(atoi(q.Get("per_page"), 30), 1), 100), atoi(q.Get("page"), 1)
	all := slices.Clone(rp.hooks)
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	from, to := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	list := make([]map[string]any, 0, to-from)
	for _, h := range all[from:to] {
		list = append(list, s.hookJSON(rp, h))
	}
	base := fmt.Sprintf("%srepos/%s/%s/hooks?per_page=%d&page=", s.URL(), rp.owner, rp.name, perPage)
	if l := pageLinks(base, page, (len(all)+perPage-1)/perPage); l != "" {
		w.header.Set("Link", l)
	}
	w.json(http.StatusOK, list)
}

// createHook is "Create a repository webhook": config.url required,
// content_type json or form (default form), events default [push], active
// default true; 422 "Hook already exists on this repository" when a hook
// of the same URL is there.
func (s *Server) createHook(w *buffered, r *http.Request, rp *repo) {
	var in hookIn
	if !decode(w, r, &in) {
		return
	}
	h := &Hook{ContentType: "form", InsecureSSL: "0", Events: []string{"push"}, Active: true}
	if !s.applyHook(w, in, h) {
		return
	}
	for _, o := range rp.hooks {
		if o.URL == h.URL {
			w.json(http.StatusUnprocessableEntity, validation(docHooks,
				map[string]any{"resource": "Hook", "code": "custom", "message": msgHookExists}))
			return
		}
	}
	h.ID = s.hookID()
	rp.hooks = append(rp.hooks, h)
	w.header.Set("Location", fmt.Sprintf("%srepos/%s/%s/hooks/%d", s.URL(), rp.owner, rp.name, h.ID))
	w.json(http.StatusCreated, s.hookJSON(rp, h))
}

// editHook is "Update a repository webhook": a config given replaces the
// configuration (its url still required), events replaces the events,
// add_events and remove_events change them, active sets it.
func (s *Server) editHook(w *buffered, r *http.Request, rp *repo, h *Hook) {
	var in hookIn
	if !decode(w, r, &in) {
		return
	}
	next := *h
	next.Events = slices.Clone(h.Events)
	if in.Config != nil {
		next.ContentType, next.Secret, next.InsecureSSL = "form", "", "0"
	}
	if !s.applyHook(w, in, &next) {
		return
	}
	next.Events = union(minus(next.Events, in.RemoveEvents), in.AddEvents)
	*h = next
	w.json(http.StatusOK, s.hookJSON(rp, h))
}

// applyHook applies in to h, or answers 422 and returns false.
func (s *Server) applyHook(w *buffered, in hookIn, h *Hook) bool {
	if in.Config != nil {
		h.URL, h.Secret = in.Config.URL, in.Config.Secret
		if in.Config.ContentType != "" {
			h.ContentType = in.Config.ContentType
		}
		if in.Config.InsecureSSL != nil {
			h.InsecureSSL = fmt.Sprint(in.Config.InsecureSSL)
		}
	}
	if in.Events != nil {
		h.Events = union(nil, *in.Events)
	}
	if in.Active != nil {
		h.Active = *in.Active
	}
	msg := ""
	switch {
	case h.URL == "":
		msg = msgHookNoURL
	case h.ContentType != "json" && h.ContentType != "form":
		msg = msgHookType
	}
	if msg != "" {
		w.json(http.StatusUnprocessableEntity, validation(docHooks, map[string]any{"resource": "Hook", "code": "custom", "message": msg}))
		return false
	}
	return true
}

// hookJSON is a repository webhook as GitHub answers it.
func (s *Server) hookJSON(rp *repo, h *Hook) map[string]any {
	self := fmt.Sprintf("%srepos/%s/%s/hooks/%d", s.URL(), rp.owner, rp.name, h.ID)
	config := map[string]any{"url": h.URL, "content_type": h.ContentType, "insecure_ssl": h.InsecureSSL}
	if h.Secret != "" {
		config["secret"] = maskedSecret
	}
	return map[string]any{
		"type": "Repository", "id": h.ID, "name": "web", "active": h.Active, "events": h.Events, "config": config,
		"updated_at": s.now(), "created_at": s.now(), "url": self, "test_url": self + "/test",
		"ping_url": self + "/pings", "deliveries_url": self + "/deliveries",
		"last_response": map[string]any{"code": nil, "status": "unused", "message": nil},
	}
}

// pageLinks is GitHub's Link header for page of last (base ends in
// "page="), "" when there is one page.
func pageLinks(base string, page, last int) string {
	var links []string
	if page < last {
		links = append(links, fmt.Sprintf(`<%s%d>; rel="next"`, base, page+1), fmt.Sprintf(`<%s%d>; rel="last"`, base, last))
	}
	if page > 1 {
		links = append(links, fmt.Sprintf(`<%s%d>; rel="prev"`, base, page-1), fmt.Sprintf(`<%s1>; rel="first"`, base))
	}
	return strings.Join(links, ", ")
}
