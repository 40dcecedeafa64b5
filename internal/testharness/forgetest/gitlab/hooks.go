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
	"net/url"
	"sort"
	"strconv"
	"time"
)

// Hook is a project webhook as the fake holds it
// (doc/api/project_webhooks.md).
type Hook struct {
	ID  int64
	URL string
	// Token is the secret token GitLab sends as X-Gitlab-Token; answers
	// never carry it.
	Token                  string
	PushEvents             bool
	PushEventsBranchFilter string
	BranchFilterStrategy   string
	MergeRequestsEvents    bool
	TagPushEvents          bool
	PipelineEvents         bool
	EnableSSLVerification  bool
	// AlertStatus is executable, or temporarily_disabled / disabled once
	// GitLab stops delivering after failures.
	AlertStatus string
}

// hookJSON is the ProjectHook entity.
type hookJSON struct {
	ID                        int64   `json:"id"`
	URL                       string  `json:"url"`
	Name                      string  `json:"name"`
	Description               string  `json:"description"`
	ProjectID                 int64   `json:"project_id"`
	PushEvents                bool    `json:"push_events"`
	PushEventsBranchFilter    string  `json:"push_events_branch_filter"`
	BranchFilterStrategy      string  `json:"branch_filter_strategy"`
	IssuesEvents              bool    `json:"issues_events"`
	ConfidentialIssuesEvents  bool    `json:"confidential_issues_events"`
	MergeRequestsEvents       bool    `json:"merge_requests_events"`
	TagPushEvents             bool    `json:"tag_push_events"`
	NoteEvents                bool    `json:"note_events"`
	ConfidentialNoteEvents    bool    `json:"confidential_note_events"`
	JobEvents                 bool    `json:"job_events"`
	PipelineEvents            bool    `json:"pipeline_events"`
	WikiPageEvents            bool    `json:"wiki_page_events"`
	DeploymentEvents          bool    `json:"deployment_events"`
	ReleasesEvents            bool    `json:"releases_events"`
	FeatureFlagEvents         bool    `json:"feature_flag_events"`
	EnableSSLVerification     bool    `json:"enable_ssl_verification"`
	RepositoryUpdateEvents    bool    `json:"repository_update_events"`
	AlertStatus               string  `json:"alert_status"`
	DisabledUntil             *string `json:"disabled_until"`
	URLVariables              []any   `json:"url_variables"`
	CreatedAt                 string  `json:"created_at"`
	ResourceAccessTokenEvents bool    `json:"resource_access_token_events"`
	CustomWebhookTemplate     string  `json:"custom_webhook_template"`
	CustomHeaders             []any   `json:"custom_headers"`
}

// AddHook adds a webhook as a person would in the project's settings, and
// returns its id.
func (s *Server) AddHook(h Hook) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastHook++
	h.ID = s.lastHook
	if h.AlertStatus == "" {
		h.AlertStatus = "executable"
	}
	s.hooks[h.ID] = &h
	return h.ID
}

// Hooks returns a copy of every webhook, by id.
func (s *Server) Hooks() []Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Hook, 0, len(s.hooks))
	for _, h := range s.hooks {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// hookEntity is h as GitLab answers it: without its token. Callers hold mu.
func (s *Server) hookEntity(h *Hook) hookJSON {
	e := hookJSON{
		ID: h.ID, URL: h.URL, ProjectID: ProjectID,
		PushEvents: h.PushEvents, PushEventsBranchFilter: h.PushEventsBranchFilter,
		BranchFilterStrategy: h.BranchFilterStrategy, MergeRequestsEvents: h.MergeRequestsEvents,
		TagPushEvents: h.TagPushEvents, PipelineEvents: h.PipelineEvents,
		EnableSSLVerification: h.EnableSSLVerification, AlertStatus: h.AlertStatus,
		URLVariables: []any{}, CreatedAt: stamp(epoch), CustomHeaders: []any{},
	}
	if h.AlertStatus == "temporarily_disabled" {
		until := stamp(epoch.Add(10 * time.Minute))
		e.DisabledUntil = &until
	}
	return e
}

// maintainer answers 403 unless the request's token may keep the
// project's webhooks (authorize_admin_project: the Maintainer role).
func maintainer(w http.ResponseWriter, r *http.Request) bool {
	if token(r) == DeveloperToken {
		fail(w, http.StatusForbidden, "403 Forbidden")
		return false
	}
	return true
}

func (s *Server) listHooks(w http.ResponseWriter, r *http.Request) {
	if !maintainer(w, r) {
		return
	}
	page, per := pageParams(r.URL.Query())
	s.mu.Lock()
	ids := make([]int64, 0, len(s.hooks))
	for id := range s.hooks {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	items := []hookJSON{}
	for i := (page - 1) * per; i < len(ids) && i < page*per; i++ {
		items = append(items, s.hookEntity(s.hooks[ids[i]]))
	}
	s.mu.Unlock()
	s.paginate(w, r, page, per, len(ids))
	reply(w, http.StatusOK, items)
}

func (s *Server) addHook(w http.ResponseWriter, r *http.Request) {
	if !maintainer(w, r) {
		return
	}
	p, ok := body(w, r)
	if !ok {
		return
	}
	// The column defaults: push events on, TLS verified, the rest off.
	h := &Hook{PushEvents: true, EnableSSLVerification: true, AlertStatus: "executable", BranchFilterStrategy: "wildcard"}
	if !setHook(w, h, p) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastHook++
	h.ID = s.lastHook
	s.hooks[h.ID] = h
	reply(w, http.StatusCreated, s.hookEntity(h))
}

func (s *Server) editHook(w http.ResponseWriter, r *http.Request) {
	if !maintainer(w, r) {
		return
	}
	p, ok := body(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.findHook(w, r)
	if h == nil {
		return
	}
	c := *h
	if u, _ := str(p, "url"); u != c.URL {
		// "When you change the webhook URL, the secret token is reset
		// and not retained."
		c.Token = ""
	}
	if setHook(w, &c, p) {
		*h = c
		reply(w, http.StatusOK, s.hookEntity(h))
	}
}

func (s *Server) deleteHook(w http.ResponseWriter, r *http.Request) {
	if !maintainer(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.findHook(w, r); h != nil {
		delete(s.hooks, h.ID)
		w.WriteHeader(http.StatusNoContent)
	}
}

// findHook returns the hook of the path's hook_id, or answers 404.
// Callers hold mu.
func (s *Server) findHook(w http.ResponseWriter, r *http.Request) *Hook {
	id, err := strconv.ParseInt(r.PathValue("hook_id"), 10, 64)
	h, ok := s.hooks[id]
	if err != nil || !ok {
		fail(w, http.StatusNotFound, "404 Not found")
		return nil
	}
	return h
}

// setHook applies the hook parameters of p to h: url is required (400),
// and must be an absolute http(s) URL (422 "Invalid url given").
func setHook(w http.ResponseWriter, h *Hook, p map[string]json.RawMessage) bool {
	raw, ok := str(p, "url")
	if !ok || raw == "" {
		reply(w, http.StatusBadRequest, map[string]any{"error": "url is missing"})
		return false
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fail(w, http.StatusUnprocessableEntity, "Invalid url given")
		return false
	}
	h.URL = raw
	if v, ok := str(p, "token"); ok {
		h.Token = v
	}
	if v, ok := str(p, "push_events_branch_filter"); ok {
		h.PushEventsBranchFilter = v
	}
	if v, ok := str(p, "branch_filter_strategy"); ok {
		h.BranchFilterStrategy = v
	}
	for k, f := range map[string]*bool{
		"push_events": &h.PushEvents, "merge_requests_events": &h.MergeRequestsEvents,
		"tag_push_events": &h.TagPushEvents, "pipeline_events": &h.PipelineEvents,
		"enable_ssl_verification": &h.EnableSSLVerification,
	} {
		if _, ok := p[k]; ok {
			*f = boolean(p, k)
		}
	}
	return true
}
