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
	"crypto/md5" //nolint:gosec // Rack::ETag's digest, not a secret.
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

const api = "/api/v4"

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mrs := api + "/projects/{id}/merge_requests"
	mux.HandleFunc("GET "+mrs, s.list)
	mux.HandleFunc("POST "+mrs, s.create)
	mux.HandleFunc("GET "+mrs+"/{iid}", s.get)
	mux.HandleFunc("PUT "+mrs+"/{iid}", s.update)
	mux.HandleFunc("GET "+mrs+"/{iid}/approvals", s.getApprovals)
	mux.HandleFunc("PUT "+mrs+"/{iid}/merge", s.merge)
	mux.HandleFunc("PUT "+mrs+"/{iid}/rebase", s.rebase)
	mux.HandleFunc("GET "+api+"/users", s.listUsers)
	hooks := api + "/projects/{id}/hooks"
	mux.HandleFunc("GET "+hooks, s.listHooks)
	mux.HandleFunc("POST "+hooks, s.addHook)
	mux.HandleFunc("PUT "+hooks+"/{hook_id}", s.editHook)
	mux.HandleFunc("DELETE "+hooks+"/{hook_id}", s.deleteHook)
	return mux
}

// serve counts, throttles and authenticates, then routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	_, pattern := s.mux.Handler(r)
	key := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		p = strings.TrimPrefix(p, api)
		p = strings.NewReplacer("{id}", ":id", "{iid}", ":iid", "{hook_id}", ":hook_id").Replace(p)
		key = r.Method + " " + p
	}
	s.mu.Lock()
	s.requests[""]++
	s.requests[key]++
	var t *throttle
	if len(s.throttle) > 0 {
		t = &s.throttle[0]
		s.throttle = s.throttle[1:]
	}
	s.mu.Unlock()
	if t != nil && t.status != 0 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(t.status)
		_, _ = fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", t.status, http.StatusText(t.status))
		return
	}
	if t != nil {
		// Rack::Attack's throttle answer (doc/security/rate_limits.md).
		h := w.Header()
		h.Set("RateLimit-Name", "throttle_authenticated_api")
		h.Set("RateLimit-Limit", "2000")
		h.Set("RateLimit-Observed", "2001")
		h.Set("RateLimit-Remaining", "0")
		if t.retryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(t.retryAfter.Seconds())))
		}
		if !t.reset.IsZero() {
			h.Set("RateLimit-Reset", strconv.FormatInt(t.reset.Unix(), 10))
			h.Set("RateLimit-ResetTime", t.reset.UTC().Format(http.TimeFormat))
		}
		h.Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte("Retry later\n"))
		return
	}
	tok := token(r)
	switch {
	case tok != Token && tok != ReadOnlyToken && tok != DeveloperToken:
		reply(w, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
		return
	case tok == ReadOnlyToken && r.Method != http.MethodGet:
		reply(w, http.StatusForbidden, map[string]any{
			"error":             "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.",
			"scope":             "api",
		})
		return
	}
	if strings.HasPrefix(r.URL.EscapedPath(), api+"/projects/") {
		id, _, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), api+"/projects/"), "/")
		// :id is the numeric id or the URL-encoded path: one segment.
		if id != strconv.Itoa(ProjectID) && id != url.PathEscape(Project) {
			reply(w, http.StatusNotFound, map[string]any{"message": "404 Project Not Found"})
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// token is the request's PRIVATE-TOKEN, else its Authorization: Bearer.
func token(r *http.Request) string {
	tok := r.Header.Get("PRIVATE-TOKEN")
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && tok == "" {
		tok = b
	}
	return tok
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers GitLab's render_api_error!: {"message": msg}.
func fail(w http.ResponseWriter, status int, msg any) {
	reply(w, status, map[string]any{"message": msg})
}

// find returns the merge request of the path's iid, or answers 404.
// Callers hold mu.
func (s *Server) find(w http.ResponseWriter, r *http.Request) *MergeRequest {
	iid, err := strconv.ParseInt(r.PathValue("iid"), 10, 64)
	m, ok := s.mrs[iid]
	if err != nil || !ok {
		fail(w, http.StatusNotFound, "404 Not found")
		return nil
	}
	return m
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "all"
	}
	page, per := pageParams(q)
	s.mu.Lock()
	var all []*MergeRequest
	for _, m := range s.mrs {
		if state == "all" || m.State == state {
			all = append(all, m)
		}
	}
	// order_by created_at, sort desc: GitLab's defaults.
	sort.Slice(all, func(i, j int) bool { return all[i].IID > all[j].IID })
	items := []mrJSON{}
	for i := (page - 1) * per; i < len(all) && i < page*per; i++ {
		items = append(items, s.entity(all[i]))
	}
	etags := s.etags
	s.mu.Unlock()

	s.paginate(w, r, page, per, len(all))
	h := w.Header()
	b, _ := json.Marshal(items)
	if etags {
		// Rack::ETag: a weak digest of the body; Rack::ConditionalGet
		// answers 304 with no body when If-None-Match carries it.
		sum := md5.Sum(b) //nolint:gosec // see the import.
		etag := `W/"` + hex.EncodeToString(sum[:]) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "max-age=0, private, must-revalidate")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	p, ok := body(w, r)
	if !ok {
		return
	}
	for _, k := range []string{"source_branch", "target_branch", "title"} {
		if v, _ := str(p, k); v == "" {
			// Grape's answer to a missing required parameter.
			reply(w, http.StatusBadRequest, map[string]any{"error": k + " is missing"})
			return
		}
	}
	source, _ := str(p, "source_branch")
	target, _ := str(p, "target_branch")
	title, _ := str(p, "title")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case source == target:
		fail(w, http.StatusUnprocessableEntity, []string{"You can't use same project/branch for source and target"})
		return
	case s.branches[source] == "":
		fail(w, http.StatusUnprocessableEntity, []string{fmt.Sprintf("Source branch %q does not exist", source)})
		return
	case s.branches[target] == "":
		fail(w, http.StatusUnprocessableEntity, []string{fmt.Sprintf("Target branch %q does not exist", target)})
		return
	}
	for _, m := range s.mrs {
		if m.SourceBranch == source && m.State == "opened" && m.inProject() {
			// validate_branches → conflict!: the message is a list.
			fail(w, http.StatusConflict, []string{fmt.Sprintf("Another open merge request already exists for this source branch: !%d", m.IID)})
			return
		}
	}
	m := s.open(source, target, title)
	m.Description, _ = str(p, "description")
	m.Labels, _ = labels(p)
	m.Reviewers, _ = s.names(p, "reviewer_ids")
	m.Assignees, _ = s.names(p, "assignee_ids")
	reply(w, http.StatusCreated, s.detail(m, false, false))
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.find(w, r); m != nil {
		q := r.URL.Query()
		reply(w, http.StatusOK, s.detail(m, q.Get("include_diverged_commits_count") == "true",
			q.Get("include_rebase_in_progress") == "true"))
	}
}

func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	p, ok := body(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(w, r)
	if m == nil {
		return
	}
	if v, ok := str(p, "title"); ok {
		m.Title = v
	}
	if v, ok := str(p, "description"); ok {
		m.Description = v
	}
	if v, ok := labels(p); ok {
		m.Labels = v
	}
	if v, ok := s.names(p, "reviewer_ids"); ok {
		m.Reviewers = v
	}
	if v, ok := s.names(p, "assignee_ids"); ok {
		m.Assignees = v
	}
	switch ev, _ := str(p, "state_event"); {
	case ev == "close" && m.State == "opened":
		m.State = "closed"
	case ev == "reopen" && m.State == "closed":
		m.State = "opened"
	}
	reply(w, http.StatusOK, s.detail(m, false, false))
}

func (s *Server) getApprovals(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.find(w, r); m != nil {
		reply(w, http.StatusOK, s.approvals(m))
	}
}

// merge follows the API's merge endpoint: 405 when neither mergeable now
// nor by auto-merge, 422 "Branch cannot be merged" when mergeable checks
// fail, else merged (or set to merge when the pipeline succeeds).
func (s *Server) merge(w http.ResponseWriter, r *http.Request) {
	p, ok := body(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(w, r)
	if m == nil {
		return
	}
	auto := false
	for _, k := range s.autoParams {
		auto = auto || boolean(p, k)
	}
	if sha, ok := str(p, "sha"); ok && sha != "" && sha != m.SHA {
		// MergeRequests::MergeService's check of the sha parameter.
		fail(w, http.StatusConflict, "SHA does not match HEAD of source branch: "+m.SHA)
		return
	}
	d := s.detailed(m)
	running := d == "ci_still_running"
	switch {
	case m.State != "opened" || d == "draft_status" || (running && !auto) ||
		(d != "mergeable" && d != "conflict" && d != "need_rebase" && !running):
		fail(w, http.StatusMethodNotAllowed, "405 Method Not Allowed")
		return
	case d == "conflict" || d == "need_rebase":
		fail(w, http.StatusUnprocessableEntity, "Branch cannot be merged")
		return
	}
	m.Squash = boolean(p, "squash")
	m.RemoveSourceBranch = boolean(p, "should_remove_source_branch")
	switch {
	case running:
		m.AutoMerge = true
	case m.failMerge != "":
		m.MergeError, m.failMerge = m.failMerge, ""
	default:
		s.mergeNow(m)
	}
	reply(w, http.StatusOK, s.detail(m, false, false))
}

func (s *Server) rebase(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.find(w, r)
	if m == nil {
		return
	}
	if m.State != "opened" {
		fail(w, http.StatusForbidden, "403 Forbidden")
		return
	}
	m.RebaseInProgress = true
	reply(w, http.StatusAccepted, map[string]any{"rebase_in_progress": true})
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("username")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []userJSON{}
	if id, ok := s.users[strings.ToLower(name)]; ok {
		out = append(out, s.user(s.logins[id]))
	}
	reply(w, http.StatusOK, out)
}

// pageParams are the page and per_page parameters: Grape's defaults 1 and
// 20, per_page at most 100.
func pageParams(q url.Values) (int, int) {
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 20
	}
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	return page, min(per, 100)
}

// paginate sets the offset pagination headers of page of total items:
// X-Page, X-Per-Page, X-Total, X-Total-Pages, X-Next-Page and X-Prev-Page
// (empty at the ends) and Link (prev, next, first, last), as
// Gitlab::Pagination::OffsetHeaderBuilder does.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, page, per, total int) {
	q := r.URL.Query()
	pages := max((total+per-1)/per, 1)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		lq := url.Values{}
		for k, v := range q {
			lq[k] = v
		}
		lq.Set("page", strconv.Itoa(p))
		lq.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s%s?%s>; rel=%q`, s.srv.URL, r.URL.EscapedPath(), lq.Encode(), rel)
	}
	var links []string
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1, "prev"))
	}
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
}
